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
python3 - 1 150000 "$BENCH_SECRET" > $OUT/callbacks.txt <<'PY'
import base64, hashlib, hmac, sys, time
first, n, secret = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
key = base64.b64decode(secret[len("whsec_"):])
ts = str(int(time.time()))
for i in range(first, first + n):
    body = '{"orderNumber":"B-%d","transactionId":"gw_%d","amount":"10.00","currency":"EUR","status":"succeeded"}' % (i, i)
    mid = "msg_%d" % i
    sig = base64.b64encode(hmac.new(key, ("%s.%s.%s" % (mid, ts, body)).encode(), hashlib.sha256).digest()).decode()
    print("%s\t%s\tv1,%s\t%s" % (mid, ts, sig, body))
PY
BENCH_JAVA_OPTS="-XX:FlightRecorderOptions=stackdepth=512 -XX:StartFlightRecording=delay=20s,duration=20s,filename=$OUT/b1.jfr,settings=profile" start_paysync "$OUT/prof.log"; wait_ready >/dev/null
B1_THREADS=2 B1_REQUESTS="$OUT/callbacks.txt" wrk -t2 -c16 -d45s -s bench/callbacks.lua http://127.0.0.1:$BENCH_PORT | grep Requests
sleep 2
stop_paysync
