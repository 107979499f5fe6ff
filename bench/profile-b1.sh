#!/usr/bin/env bash
# The profile behind B1: a JFR recording (20 s, after 20 s of warm-up) of one server under wrk, 16 connections; prints
# the buckets of bench/jfr-buckets.py, each also as samples per 1,000 callbacks, so two servers' profiles compare.
# Usage: bash bench/profile-b1.sh [paysync|vertx]   (default paysync: the jar; vertx: bench/ingest's handler)
# Writes target/bench/b1[-vertx].jfr and target/bench/b1[-vertx]-profile.txt.
source "$(dirname "$0")/common.sh"
TARGET=${1:-paysync}
case "$TARGET" in paysync) TAG=b1 ;; vertx) TAG=b1-vertx ;; *) echo "usage: $0 [paysync|vertx]" >&2; exit 2 ;; esac
exec 9> /tmp/paysync-bench.lock; flock 9
fresh_db
start_paysync "$OUT/prof-migrate.log"; wait_ready > /dev/null; stop_paysync
psql -q -d "$BENCH_DB" -c "INSERT INTO orders (order_number, amount, currency, payment_status, sync_status,
      sync_attempts, created_at) SELECT 'B-' || i, 10.00, 'EUR', 'Pending', 'Pending', 0, now()
      FROM generate_series(1, 200000) i" -c "VACUUM ANALYZE"
python3 bench/sign-callbacks.py 1 150000 "$BENCH_SECRET" > $OUT/callbacks.txt
JFR="-XX:FlightRecorderOptions=stackdepth=512 -XX:StartFlightRecording=delay=20s,duration=20s,filename=$OUT/$TAG.jfr,settings=profile"
if [ "$TARGET" = paysync ]; then
  BENCH_JAVA_OPTS="$JFR" start_paysync "$OUT/prof.log"; wait_ready > /dev/null
  port=$BENCH_PORT
else
  mvn -q -B -ntp -f bench/ingest/pom.xml package
  port=$((BENCH_PORT + 2))
  start_vertx_baseline "$port" "$OUT/prof-vertx.log" $JFR
  PAYSYNC_PID=$BASE_STARTED_PID # stop_paysync stops it
fi
trap stop_paysync EXIT
paid_at() { psql -Atq -d "$BENCH_DB" -c "SELECT count(*) FROM orders WHERE payment_status = 'Paid'"; }
B1_THREADS=2 B1_REQUESTS="$OUT/callbacks.txt" wrk -t2 -c16 -d45s -s bench/callbacks.lua "http://127.0.0.1:$port" \
  > "$OUT/$TAG-wrk.txt" &
wrk_pid=$!
sleep 20; a=$(paid_at); cpu_a=$(awk '{print $14 + $15}' /proc/$PAYSYNC_PID/stat)
sleep 20; b=$(paid_at); cpu_b=$(awk '{print $14 + $15}' /proc/$PAYSYNC_PID/stat)
wait $wrk_pid
sleep 2
stop_paysync
tck=$(getconf CLK_TCK)
{
  echo "$TARGET under wrk -t2 -c16: $(awk '/Requests\/sec/ {print $2}' "$OUT/$TAG-wrk.txt") req/s over 45 s;" \
    "$((b - a)) callbacks in the recorded 20 s, server CPU $(awk -v c=$((cpu_b - cpu_a)) -v t="$tck" -v n=$((b - a)) \
    'BEGIN {printf "%.3f ms per callback", 1000 * c / t / n}')"
  python3 bench/jfr-buckets.py "$OUT/$TAG.jfr" $((b - a))
} | tee "$OUT/$TAG-profile.txt"
