#!/usr/bin/env bash
# B1: signed callback ingest on PostgreSQL (each request a real Pending -> Paid), beside pgbench running the same
# guarded UPDATE and history insert at the same concurrency. Usage: bash bench/b1-callbacks.sh [connections] [seconds]
# Writes target/bench/b1.txt. Needs wrk and pgbench (Debian: apt-get install wrk postgresql-client).
source "$(dirname "$0")/common.sh"
CONNS=${1:-16}
SECS=${2:-30}
ORDERS=${B1_ORDERS:-400000}

seed() { # a fresh database with ORDERS Pending orders B-1..B-n and a sequence for pgbench
  fresh_db
  start_paysync "$OUT/b1-migrate.log"; wait_ready > /dev/null; stop_paysync
  psql -q -d "$BENCH_DB" -c "INSERT INTO orders (order_number, amount, currency, payment_status, sync_status,
      sync_attempts, created_at) SELECT 'B-' || i, 10.00, 'EUR', 'Pending', 'Pending', 0, now()
      FROM generate_series(1, $ORDERS) i" -c "CREATE SEQUENCE bench_order_ids" -c "VACUUM ANALYZE" -c "CHECKPOINT"
}

# Paysync under wrk
seed
python3 - "$ORDERS" "$BENCH_SECRET" > "$OUT/callbacks.txt" <<'PY'
import base64, hashlib, hmac, sys, time
n, secret = int(sys.argv[1]), sys.argv[2]
key = base64.b64decode(secret[len("whsec_"):])
ts = str(int(time.time()))
for i in range(1, n + 1):
    body = '{"orderNumber":"B-%d","transactionId":"gw_%d","amount":"10.00","currency":"EUR","status":"succeeded"}' % (i, i)
    mid = "msg_%d" % i
    sig = base64.b64encode(hmac.new(key, ("%s.%s.%s" % (mid, ts, body)).encode(), hashlib.sha256).digest()).decode()
    print("%s\t%s\tv1,%s\t%s" % (mid, ts, sig, body))
PY
start_paysync "$OUT/b1-paysync.log"; wait_ready > /dev/null
# warm-up (JIT), then the measured run, on separate slices of orders
B1_THREADS=2 B1_REQUESTS="$OUT/callbacks.txt" wrk -t2 -c"$CONNS" -d10s -s bench/callbacks.lua \
  "http://127.0.0.1:$BENCH_PORT" > "$OUT/b1-warmup.txt"
warm=$(psql -Atq -d "$BENCH_DB" -c "SELECT count(*) FROM orders WHERE payment_status = 'Paid'")
tail -n +$((warm + 1)) "$OUT/callbacks.txt" > "$OUT/callbacks-run.txt"
B1_THREADS=2 B1_REQUESTS="$OUT/callbacks-run.txt" wrk -t2 -c"$CONNS" -d"${SECS}s" --latency -s bench/callbacks.lua \
  "http://127.0.0.1:$BENCH_PORT" | tee "$OUT/b1-wrk.txt"
paid=$(psql -Atq -d "$BENCH_DB" -c "SELECT count(*) FROM orders WHERE payment_status = 'Paid'")
stop_paysync

# pgbench, same statements, same concurrency, fresh data
seed
pgbench -n -c"$CONNS" -j2 -T10 -f bench/pgbench-callback.sql "$BENCH_DB" > /dev/null 2>&1 # warm-up
pgbench -n -c"$CONNS" -j2 -T"$SECS" -f bench/pgbench-callback.sql "$BENCH_DB" | tee "$OUT/b1-pgbench.txt"

rps=$(awk '/Requests\/sec/ {print $2}' "$OUT/b1-wrk.txt")
tps=$(awk '/^tps/ {print $3}' "$OUT/b1-pgbench.txt")
{
  echo "B1 $(date -u +%FT%TZ), $(nproc) cores, $CONNS connections, ${SECS} s after a 10 s warm-up, pool ${BENCH_POOL:-8}"
  echo "paysync callbacks: $rps req/s ($(grep -E 'latency p50' "$OUT/b1-wrk.txt")); orders Paid in all: $paid"
  echo "pgbench same UPDATE + history row: $tps tps"
  echo "ratio paysync / pgbench: $(python3 -c "print(round($rps / $tps, 2))")"
} | tee "$OUT/b1.txt"
