#!/usr/bin/env bash
# The profile behind B2: a JFR recording (20 s, after 30 s of draining) of one Paysync worker draining a backlog of
# Paid orders to the stub at 0 ms; prints the buckets of bench/jfr-buckets.py, each also as samples per 1,000 orders,
# and the worker's CPU per order in the recorded window.
# Usage: bash bench/profile-b2.sh      Writes target/bench/b2.jfr and target/bench/b2-profile.txt.
BENCH_DB=${BENCH_DB:-paysync_bench_sync}
BENCH_PORT=${BENCH_PORT:-18190}
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/sync-common.sh"
NEVER_PAID=${NEVER_PAID:-1000}
build_bench_tools
exec 9> /tmp/paysync-bench.lock; flock 9
trap cleanup EXIT
setup_db
start_stub $((BENCH_PORT + 50))
reset_data 0 0
JFR="-XX:FlightRecorderOptions=stackdepth=512 -XX:StartFlightRecording=delay=30s,duration=20s,filename=$OUT/b2.jfr,settings=profile"
BENCH_JAVA_OPTS="$JFR" start_workers paysync 1 b2-prof
seed_backlog paysync 300000
completed() { q -c "SELECT count(*) FROM orders WHERE sync_status = 'Completed'"; }
sleep 30; a=$(completed); cpu_a=$(awk '{print $14 + $15}' "/proc/${WORKER_PIDS[0]}/stat")
sleep 20; b=$(completed); cpu_b=$(awk '{print $14 + $15}' "/proc/${WORKER_PIDS[0]}/stat")
sleep 3
stop_workers
{
  echo "one worker, stub at 0 ms: $((b - a)) orders in the recorded 20 s ($(( (b - a) / 20 ))/s), worker CPU" \
    "$(awk -v c=$((cpu_b - cpu_a)) -v t="$(getconf CLK_TCK)" -v n=$((b - a)) 'BEGIN {printf "%.3f ms per order", 1000 * c / t / n}')"
  python3 bench/jfr-buckets.py "$OUT/b2.jfr" $((b - a))
} | tee "$OUT/b2-profile.txt"
