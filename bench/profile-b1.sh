#!/usr/bin/env bash
# The profile behind B1: a JFR recording (20 s, after 15 s of warm-up) of the jar under wrk, 16 connections; prints the
# hottest frames. Usage: bash bench/profile-b1.sh     Writes target/bench/b1.jfr and target/bench/b1-profile.txt.
source "$(dirname "$0")/common.sh"
exec 9> /tmp/paysync-bench.lock; flock 9
fresh_db
start_paysync "$OUT/prof-migrate.log"; wait_ready > /dev/null; stop_paysync
psql -q -d "$BENCH_DB" -c "INSERT INTO orders (order_number, amount, currency, payment_status, sync_status,
      sync_attempts, created_at) SELECT 'B-' || i, 10.00, 'EUR', 'Pending', 'Pending', 0, now()
      FROM generate_series(1, 200000) i" -c "VACUUM ANALYZE"
python3 bench/sign-callbacks.py 1 150000 "$BENCH_SECRET" > $OUT/callbacks.txt
BENCH_JAVA_OPTS="-XX:FlightRecorderOptions=stackdepth=512 -XX:StartFlightRecording=delay=20s,duration=20s,filename=$OUT/b1.jfr,settings=profile" start_paysync "$OUT/prof.log"; wait_ready >/dev/null
B1_THREADS=2 B1_REQUESTS="$OUT/callbacks.txt" wrk -t2 -c16 -d45s -s bench/callbacks.lua http://127.0.0.1:$BENCH_PORT | grep Requests
sleep 2
stop_paysync
