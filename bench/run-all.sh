#!/usr/bin/env bash
# Every benchmark in turn on this machine, then the summary of ratios (docs/benchmarks.md, "Running them").
# Usage: bash bench/run-all.sh     (about 100 minutes; nothing else should run on the machine meanwhile)
# Writes target/bench/b1.md, b1-h2.md, b1-adapters.md, b2.md, b3.md, b4.txt, b4-jdk25.txt, b5.md, b6.md and
# target/bench/summary.md.
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -q -B package -DskipTests
# A benchmark that fails leaves no table of an earlier run for the summary to paste as this run's.
rm -f target/bench/b4.txt target/bench/b4-jdk25.txt target/bench/b1.md target/bench/b1-h2.md \
  target/bench/b1-adapters.md target/bench/b2.md target/bench/b3.md target/bench/b5.md target/bench/b6.md
# A benchmark that fails (B1 refusing a fixed-rate run, say) does not cost the others: the rest still run, and the
# summary and the exit status say which failed.
failed=""
for b in b4-startup b4-jdk25 b1-callbacks b1-h2 b1-adapters b2-sync b3-growth b5-settlement b6-adoption; do
  [ -f "bench/$b.sh" ] || { echo "bench/$b.sh missing"; continue; }
  echo "=== $b ($(date -u +%T))"
  bash "bench/$b.sh" || { echo "=== $b FAILED (exit $?)"; failed="$failed $b"; }
done
{
  echo "# One run, $(date -u +%FT%TZ), $(nproc) cores, $(java -version 2>&1 | head -1), commit $(git rev-parse --short HEAD)"
  [ -z "$failed" ] || echo "FAILED:$failed (see the run's output)"
  # Markdown that pastes into docs/benchmarks.md as it is: the tables stay tables, b4.txt's plain lines in a block.
  for f in b4.txt b4-jdk25.txt b1.md b1-h2.md b1-adapters.md b2.md b3.md b5.md b6.md; do
    [ -f "target/bench/$f" ] || continue
    echo; echo "### $f"; echo
    case $f in *.txt) echo '```'; cat "target/bench/$f"; echo '```';; *) cat "target/bench/$f";; esac
  done
} > target/bench/summary.md
echo "summary: target/bench/summary.md"
[ -z "$failed" ] || { echo "failed:$failed"; exit 1; }
