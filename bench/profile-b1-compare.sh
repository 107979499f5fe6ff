#!/usr/bin/env bash
# B1's gap, measured where it is: Paysync and the plain Vert.x handler (bench/ingest) running side by side on one
# database, each profiled by async-profiler (CPU, every thread, native and kernel frames) while wrk drives them in
# alternating 10 s turns, so both see the same machine; then each server's CPU per callback, bucket by bucket
# (bench/cpu-compare.py). The turns before the profilers start are the JIT's warm-up (about 35 s of load on a 2-core
# machine). Usage: bash bench/profile-b1-compare.sh   (B1C_WARM_ROUNDS, B1C_ROUNDS, B1C_SECS to change the turns)
# Writes target/bench/b1c-{paysync,vertx}.collapsed and target/bench/b1-compare.md.
source "$(dirname "$0")/common.sh"
WARM_ROUNDS=${B1C_WARM_ROUNDS:-2}; WARM_SECS=20
ROUNDS=${B1C_ROUNDS:-6}; SECS=${B1C_SECS:-10}
SLICE=$((SECS * 6000)); WARM_SLICE=$((WARM_SECS * 6000)) # orders for a turn at up to 6,000 callbacks/s
ORDERS=$((2 * WARM_ROUNDS * WARM_SLICE + 2 * ROUNDS * SLICE))
INTERVAL_US=997
exec 9> /tmp/paysync-bench.lock; flock 9
mvn -q -B -ntp -f bench/ingest/pom.xml package
CP="bench/ingest/target/classes:bench/ingest/target/lib/*"
unzip -o -q bench/ingest/target/lib/async-profiler-*.jar 'linux-x64/libasyncProfiler.so' -d "$OUT/async-profiler"
AGENT=$(realpath "$OUT/async-profiler/linux-x64/libasyncProfiler.so")

fresh_db
start_paysync "$OUT/b1c-migrate.log"; wait_ready > /dev/null; stop_paysync
psql -q -d "$BENCH_DB" -c "INSERT INTO orders (order_number, amount, currency, payment_status, sync_status,
      sync_attempts, created_at) SELECT 'B-' || i, 10.00, 'EUR', 'Pending', 'Pending', 0, now()
      FROM generate_series(1, $ORDERS) i" -c "VACUUM ANALYZE" -c "CHECKPOINT"

start_paysync "$OUT/b1c-paysync.log"; wait_ready > /dev/null
BASE_PORT=$((BENCH_PORT + 2))
trap 'stop_paysync; [ -z "${BASE_STARTED_PID:-}" ] || kill "$BASE_STARTED_PID" 2> /dev/null || true' EXIT
start_vertx_baseline "$BASE_PORT" "$OUT/b1c-vertx.log"
BASE_PID=$BASE_STARTED_PID
port_of() { [ "$1" = paysync ] && echo "$BENCH_PORT" || echo "$BASE_PORT"; }
pid_of() { [ "$1" = paysync ] && echo "$PAYSYNC_PID" || echo "$BASE_PID"; }
paid() { psql -Atq -d "$BENCH_DB" -c "SELECT count(*) FROM orders WHERE payment_status = 'Paid'"; }

NEXT=1
turn() { # turn NAME SECONDS FIRST COUNT: wrk on orders B-FIRST.., signed now; prints the callbacks that moved an order
  python3 bench/sign-callbacks.py "$3" "$4" "$BENCH_SECRET" > "$OUT/callbacks.txt"
  local before; before=$(paid)
  B1_THREADS=2 B1_REQUESTS="$OUT/callbacks.txt" wrk -t2 -c16 -d"$2s" -s bench/callbacks.lua \
    "http://127.0.0.1:$(port_of "$1")" > "$OUT/b1c-$1-wrk.txt"
  grep -q "non-2xx or socket errors: 0" "$OUT/b1c-$1-wrk.txt" || { echo "$1: errors in a turn" >&2; exit 1; }
  echo $(( $(paid) - before ))
}
for _ in $(seq 1 "$WARM_ROUNDS"); do
  for s in paysync vertx; do turn "$s" "$WARM_SECS" "$NEXT" "$WARM_SLICE" > /dev/null; NEXT=$((NEXT + WARM_SLICE)); done
done
for s in paysync vertx; do
  java -cp "$CP" io.paysync.bench.ProfilerAttach "$(pid_of "$s")" "$AGENT" "start,event=cpu,interval=${INTERVAL_US}us,threads"
done
declare -A CALLS=([paysync]=0 [vertx]=0) TICKS=([paysync]=0 [vertx]=0)
for _ in $(seq 1 "$ROUNDS"); do
  for s in paysync vertx; do
    t0=$(awk '{print $14 + $15}' "/proc/$(pid_of "$s")/stat")
    n=$(turn "$s" "$SECS" "$NEXT" "$SLICE"); NEXT=$((NEXT + SLICE))
    CALLS[$s]=$(( CALLS[$s] + n ))
    TICKS[$s]=$(( TICKS[$s] + $(awk '{print $14 + $15}' "/proc/$(pid_of "$s")/stat") - t0 ))
  done
done
for s in paysync vertx; do
  java -cp "$CP" io.paysync.bench.ProfilerAttach "$(pid_of "$s")" "$AGENT" "stop,threads,collapsed,file=$(realpath "$OUT")/b1c-$s.collapsed"
done
# Every callback must have moved its own order: a slice run out would have resent callbacks (already-paid answers)
repeats=$(psql -Atq -d "$BENCH_DB" -c "SELECT count(*) FROM callbacks WHERE outcome <> 'paid'")
[ "$repeats" = 0 ] || { echo "$repeats callbacks did not move an order: raise the slice" >&2; exit 1; }
hz=$(getconf CLK_TCK)
{
  echo "B1 profile side by side, $(date -u +%FT%TZ), $(nproc) cores: $WARM_ROUNDS x $WARM_SECS s of warm-up turns each," \
    "then $ROUNDS x $SECS s turns each, alternating, wrk -t2 -c16, async-profiler $(basename bench/ingest/target/lib/async-profiler-*.jar .jar) (cpu, ${INTERVAL_US} us)"
  echo
  for s in paysync vertx; do
    echo "- $s: ${CALLS[$s]} callbacks in the profiled turns ($(( CALLS[$s] / (ROUNDS * SECS) ))/s)," \
      "server CPU from /proc $(python3 -c "print(round(${TICKS[$s]} * 1e6 / $hz / ${CALLS[$s]}, 1))") us per callback"
  done
  echo
  python3 bench/cpu-compare.py "$INTERVAL_US" paysync "$OUT/b1c-paysync.collapsed" "${CALLS[paysync]}" \
    vertx "$OUT/b1c-vertx.collapsed" "${CALLS[vertx]}"
} | tee "$OUT/b1-compare.md"
