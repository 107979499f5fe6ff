#!/usr/bin/env bash
# B4 A/B: interleaved starts of several builds, for comparing changes on a machine that other work shares.
# Usage: bash bench/b4-ab.sh <rounds> <checkout> <checkout>...   (each checkout built with mvn package, in its own
#        directory: an archive is only valid for the absolute paths it was written with)
# Per round, one start of each checkout in turn: it waits (at most 30 s) until the machine was at least AB_QUIET %
# idle (default 90) over one second, then times process start to /observe/health/ready = 200 and the JVM's CPU time
# to that moment, holding /tmp/paysync-bench.lock as b4-startup.sh does; the JVM is stopped at once (no RSS, see
# b4-startup.sh for that). A checkout may be given as <dir>=<file>: the file (shell) sets BENCH_JAVA, CDS_OPTS and
# BENCH_JAVA_OPTS for that entry's starts (e.g. another JDK, another archive, a setting), named <dir>=<file name>; the
# same build can so be measured with several JVM options. Prints one line per start: checkout, wall ms, CPU ms, idle % before, load average; then
# the medians and the per-round differences against the first checkout. Logs: target/bench/ab/<checkout>-<round>.log
source "$(dirname "$0")/common.sh"
ROUNDS=$1; shift
AB_QUIET=${AB_QUIET:-90}
AB_OUT=$PWD/$OUT/ab
mkdir -p "$AB_OUT"; rm -f "$AB_OUT"/*.log "$AB_OUT"/results.txt
fresh_db
cd "${1%%=*}"; start_paysync "$AB_OUT/migrate.log"; wait_ready > /dev/null; stop_paysync; cd "$OLDPWD"
DEFAULT_CDS_OPTS=$CDS_OPTS DEFAULT_JAVA_OPTS=${BENCH_JAVA_OPTS:-}
name_of() { # name_of <entry>: <dir name> or <dir name>=<variant file name>
  case $1 in *=*) echo "$(basename "${1%%=*}")=$(basename "${1#*=}" .env)";; *) basename "$1";; esac
}
variant() { # variant <entry>: sets the JVM and options of that entry's starts
  BENCH_JAVA=java CDS_OPTS=$DEFAULT_CDS_OPTS BENCH_JAVA_OPTS=$DEFAULT_JAVA_OPTS
  case $1 in *=*) source "${1#*=}";; esac
}
NAMES=(); for entry in "$@"; do NAMES+=("$(name_of "$entry")"); done
tick=$(getconf CLK_TCK)
idle_pct() { # idle share of all CPUs over the next second, in %
  local a ai u n s i w x y z
  read -r _ u n s i w x y z _ < /proc/stat; a=$((u + n + s + i + w + x + y + z)); ai=$((i + w)); sleep 1
  read -r _ u n s i w x y z _ < /proc/stat; echo $(( 100 * (i + w - ai) / (u + n + s + i + w + x + y + z - a) ))
}
for r in $(seq 1 "$ROUNDS"); do
  for entry in "$@"; do
    variant "$entry"; name=$(name_of "$entry"); dir=${entry%%=*}
    for _ in $(seq 1 30); do q=$(idle_pct); [ "$q" -ge "$AB_QUIET" ] && break; done
    exec 9> /tmp/paysync-bench.lock; flock 9
    start=$(date +%s%N)
    cd "$dir"; start_paysync "$AB_OUT/$name-$r.log" 9>&-; cd "$OLDPWD" # the JVM must not inherit the lock
    pid=$PAYSYNC_PID
    until curl -fs -o /dev/null "http://127.0.0.1:$BENCH_PORT/observe/health/ready"; do
      kill -0 "$pid" 2>/dev/null || { echo "$name exited, see $AB_OUT/$name-$r.log" >&2; exit 1; }
      sleep 0.01
    done
    end=$(date +%s%N)
    cpu=$(awk -v t="$tick" '{print int(($14 + $15) * 1000 / t)}' "/proc/$pid/stat")
    flock -u 9; exec 9>&-
    stop_paysync
    check_cds "$AB_OUT/$name-$r.log"
    echo "$name $(( (end - start) / 1000000 )) $cpu $q $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$AB_OUT/results.txt"
  done
done
python3 - "$AB_OUT/results.txt" "${NAMES[@]}" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
names = sys.argv[2:]
col = {n: [r for r in rows if r[0] == n] for n in names}
for n in names:
    w = [int(r[1]) for r in col[n]]; c = [int(r[2]) for r in col[n]]
    print(f"{n}: wall median {st.median(w):.0f} ms ({min(w)}-{max(w)}), CPU median {st.median(c):.0f} ms ({min(c)}-{max(c)}), n={len(w)}")
for n in names[1:]:
    dw = [int(b[1]) - int(a[1]) for a, b in zip(col[names[0]], col[n])]
    dc = [int(b[2]) - int(a[2]) for a, b in zip(col[names[0]], col[n])]
    print(f"{n} - {names[0]} per round: wall median {st.median(dw):+.0f} ms (faster in {sum(d < 0 for d in dw)} of {len(dw)}), CPU median {st.median(dc):+.0f} ms")
PY
