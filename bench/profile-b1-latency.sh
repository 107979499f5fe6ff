#!/usr/bin/env bash
# The profile behind B1's fixed-rate tail: the jar under the fixed-rate client at RATE req/s (after a 30 s wrk
# warm-up) with the JVM's GC and safepoint logs, then every pause longer than 10 ms during the recorded 30 s.
# Usage: bash bench/profile-b1-latency.sh RATE [extra JVM options...]   Writes target/bench/lat-*.
source "$(dirname "$0")/common.sh"
RATE=${1:?rate}; shift
EXTRA="$*"
exec 9> /tmp/paysync-bench.lock; flock 9
fresh_db
start_paysync "$OUT/lat-migrate.log"; wait_ready > /dev/null; stop_paysync
psql -q -d "$BENCH_DB" -c "INSERT INTO orders (order_number, amount, currency, payment_status, sync_status,
      sync_attempts, created_at) SELECT 'B-' || i, 10.00, 'EUR', 'Pending', 'Pending', 0, now()
      FROM generate_series(1, 400000) i" -c "VACUUM ANALYZE" -c "CHECKPOINT"
python3 bench/sign-callbacks.py 1 200000 "$BENCH_SECRET" > "$OUT/callbacks.txt"
BENCH_JAVA_OPTS="$EXTRA -Xlog:gc:file=$OUT/lat-gc.log:uptime -Xlog:safepoint:file=$OUT/lat-safepoint.log:uptime" \
  start_paysync "$OUT/lat.log"; wait_ready > /dev/null
B1_THREADS=2 B1_REQUESTS="$OUT/callbacks.txt" wrk -t2 -c16 -d30s -s bench/callbacks.lua \
  "http://127.0.0.1:$BENCH_PORT" > /dev/null
from=$(awk '{print $1}' /proc/uptime)
: > "$OUT/lat.md"
java -cp "bench/ingest/target/classes:bench/ingest/target/lib/*" io.paysync.bench.LoadClient "lat-$RATE" \
  "http://127.0.0.1:$BENCH_PORT" "$RATE" 30 15 16 200001 "$BENCH_SECRET" "$OUT/lat.md" > /dev/null 2>&1 || true
stop_paysync
cat "$OUT/lat.md"
echo "JVM options: $EXTRA; GC pauses (all, during the whole run): $(grep -c 'Pause' "$OUT/lat-gc.log"), total $(grep 'Pause' "$OUT/lat-gc.log" | awk '{gsub("ms","",$NF); s+=$NF} END {print s}') ms, longest $(grep 'Pause' "$OUT/lat-gc.log" | awk '{gsub("ms","",$NF); if ($NF>m) m=$NF} END {print m}') ms"
echo "safepoints over 10 ms: $(grep -E 'Total: [0-9]{8,}' "$OUT/lat-safepoint.log" | wc -l)"
grep 'Pause' "$OUT/lat-gc.log" | tail -5
