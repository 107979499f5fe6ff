#!/usr/bin/env bash
# B4: start-up to ready and idle RSS of the jar (prod profile, PostgreSQL, schema already migrated).
# Usage: bash bench/b4-startup.sh [runs]   (default 5; writes target/bench/b4.txt: the figures, then the phases from
#                                          the logs target/bench/b4-<n>.log, see b4-phases.sh)
# Environment: BENCH_CDS=off measures without the class data sharing archive (default: target/paysync.jsa, as the
# README's run command); BENCH_JAVA_OPTS adds JVM options; BENCH_DB, BENCH_PORT as in common.sh.
# Each timed start holds /tmp/paysync-bench.lock, so starts timed by other scripts on this machine do not overlap it.
source "$(dirname "$0")/common.sh"
RUNS=${1:-5}
LOCK=/tmp/paysync-bench.lock
fresh_db
rm -f "$OUT"/b4-[0-9]*.log "$OUT"/b4-[0-9]*.start "$OUT"/b4-[0-9]*.ready
start_paysync "$OUT/b4-migrate.log"; wait_ready > /dev/null; stop_paysync
ready=(); cpu=(); rss=()
tick=$(getconf CLK_TCK)
for run in $(seq 1 "$RUNS"); do
  exec 9> "$LOCK"; flock 9
  start=$(date +%s%N)
  echo $(( start / 1000000 )) > "$OUT/b4-$run.start"
  start_paysync "$OUT/b4-$run.log" 9>&- # the JVM must not inherit the lock
  until curl -fs -o /dev/null "http://127.0.0.1:$BENCH_PORT/observe/health/ready"; do
    kill -0 "$PAYSYNC_PID" 2>/dev/null || { echo "paysync exited, see $OUT/b4-$run.log" >&2; exit 1; }
    sleep 0.01
  done
  end=$(date +%s%N)
  echo $(( end / 1000000 )) > "$OUT/b4-$run.ready"
  ready+=($(( (end - start) / 1000000 )))
  # CPU time (user + system) the JVM spent until ready: less sensitive than wall time to other load on the machine.
  cpu+=($(awk -v t="$tick" '{print int(($14 + $15) * 1000 / t)}' "/proc/$PAYSYNC_PID/stat"))
  flock -u 9; exec 9>&-
  sleep 15 # idle: timers off, nothing to do
  rss+=($(awk '/VmRSS/ {print int($2 / 1024)}' "/proc/$PAYSYNC_PID/status"))
  stop_paysync
  check_cds "$OUT/b4-$run.log"
done
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : int((v[NR/2] + v[NR/2+1]) / 2)}'; }
range() { printf '%s\n' "$@" | sort -n | awk 'NR==1 {lo=$1} {hi=$1} END {print lo "-" hi}'; }
{
  echo "B4 $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(java -version 2>&1 | head -1)"
  echo "JVM options: ${CDS_OPTS:-(no archive)} ${BENCH_JAVA_OPTS:-}"
  echo "start-up to ready (ms, process start to /observe/health/ready 200): ${ready[*]}; median $(median "${ready[@]}"), range $(range "${ready[@]}")"
  echo "CPU time to ready (ms, user+system): ${cpu[*]}; median $(median "${cpu[@]}"), range $(range "${cpu[@]}")"
  echo "idle RSS after 15 s (MB): ${rss[*]}; median $(median "${rss[@]}"), range $(range "${rss[@]}")"
} | tee "$OUT/b4.txt"
bash "$(dirname "$0")/b4-phases.sh" "$OUT" | tee -a "$OUT/b4.txt"
