#!/usr/bin/env bash
# B4: start-up to ready and idle RSS of the jar (prod profile, PostgreSQL, schema already migrated), 5 runs.
# Usage: bash bench/b4-startup.sh      Writes target/bench/b4.txt.
source "$(dirname "$0")/common.sh"
fresh_db
start_paysync "$OUT/b4-migrate.log"; wait_ready > /dev/null; stop_paysync
ready=(); rss=()
for run in 1 2 3 4 5; do
  start=$(date +%s%N)
  start_paysync "$OUT/b4-$run.log"
  while ! curl -fs -o /dev/null "http://127.0.0.1:$BENCH_PORT/observe/health/ready"; do sleep 0.01; done
  ready+=($(( ($(date +%s%N) - start) / 1000000 )))
  sleep 15 # idle: timers off, nothing to do
  rss+=($(awk '/VmRSS/ {print int($2 / 1024)}' "/proc/$PAYSYNC_PID/status"))
  stop_paysync
done
median() { printf '%s\n' "$@" | sort -n | sed -n 3p; }
{
  echo "B4 $(date -u +%FT%TZ), $(nproc) cores, $(java -version 2>&1 | head -1)"
  echo "start-up to ready (ms, process start to /observe/health/ready 200): ${ready[*]}; median $(median "${ready[@]}")"
  echo "idle RSS after 15 s (MB): ${rss[*]}; median $(median "${rss[@]}")"
} | tee "$OUT/b4.txt"
