#!/usr/bin/env bash
# B1 through the gateway adapters: signed payment notifications on PostgreSQL, each a real Pending -> Paid, through
# three endpoints of one Paysync (prod profile, both adapters on), three cells side by side:
#   plain      POST /api/payments/callback, Standard Webhooks HMAC (bench/sign-callbacks.py, as B1), orders B-n
#   stripe     POST /api/gateways/stripe/webhook, payment_intent.succeeded in Stripe's shape, Stripe-Signature
#              HMAC-SHA256 over "<t>.<body>" (routes/adapters/stripe-adapter.camel.yaml), orders S-n
#   wechatpay  POST /api/gateways/wechatpay/notify, TRANSACTION.SUCCESS with its resource sealed AES-256-GCM and the
#              whole signed SHA256withRSA 2048 over "<timestamp>\n<nonce>\n<body>\n", checked with the platform
#              certificate its serial names (routes/adapters/wechatpay-adapter.camel.yaml), orders W-n
# Their runs alternate (plain, stripe, wechatpay, plain, ...) so a slow minute of this shared machine falls on all:
# wrk (closed loop) at the same connections, REPS x SECS after a WARM s warm-up per cell; median and range of req/s,
# the ratios stripe / plain and wechatpay / plain (target: >= 0.5, a scheme's cost must not halve the callback rate),
# commits and CPU per request (server JVM, whole machine).
# Every request is signed before the first cell starts (RSA signing is slow: signing between runs would leave the
# machine idle for minutes), so the run sets the three tolerances, paysync.gateway.tolerance-seconds and
# paysync.adapters.{stripe,wechatpay}.tolerance-seconds, to B1A_TOLERANCE (a day) instead of the 300 s default.
# A run counts only if every answer was "paid" and its cell's Paid orders grew by at least the answers wrk counted;
# otherwise (refused signatures, a mapping that no longer reads the event, a slice run out of orders) the script
# fails naming the cell, rather than report a fast rate of refusals.
# Usage: bash bench/b1-adapters.sh [connections] [seconds]     (defaults 16 and 20; B1A_REPS=3, B1A_WARM=30,
# B1A_MAX_RATE=5000: the req/s a cell is signed for, which sizes the orders; about 7 minutes with the defaults)
# Writes target/bench/b1-adapters.md. Needs wrk, and Python 3 with the cryptography package.
BENCH_NO_STATEMENTS=1 # counts commits and CPU, not statements: pg_stat_statements need not be loaded
source "$(dirname "$0")/common.sh"
CONNS=${1:-16}
SECS=${2:-20}
REPS=${B1A_REPS:-3}
WARM=${B1A_WARM:-30}
MAX_RATE=${B1A_MAX_RATE:-5000}
TOLERANCE=${B1A_TOLERANCE:-86400}
CELLS="plain stripe wechatpay"
WORK="$OUT/b1-adapters"
RESULT="$OUT/b1-adapters.md"
# Bench-only secrets, like common.sh's BENCH_SECRET; sign-adapters.py reads them from the environment.
export B1A_STRIPE_SECRET="whsec_paysync-bench-stripe-secret-0123"
export B1A_APIV3_KEY="PaysyncBenchApiV3Key0123456789ab" # WeChat Pay's APIv3 key: 32 characters, AES-256

prefix_of() { case "$1" in plain) echo B ;; stripe) echo S ;; wechatpay) echo W ;; esac; }
currency_of() { case "$1" in wechatpay) echo CNY ;; *) echo EUR ;; esac; }
# Slice 0 warms up (WARM s), slices 1..REPS are the recorded runs (SECS s each): orders for MAX_RATE req/s each.
count_of() { if [ "$1" = 0 ]; then echo $((WARM * MAX_RATE)); else echo $((SECS * MAX_RATE)); fi; }
first_of() { if [ "$1" = 0 ]; then echo 1; else echo $((1 + (WARM + ($1 - 1) * SECS) * MAX_RATE)); fi; }
ORDERS=$(( (WARM + REPS * SECS) * MAX_RATE )) # per cell

q() { psql -Atq -d "$BENCH_DB" -c "$1"; }
cpu_of() { awk '{print $14 + $15}' "/proc/$1/stat"; } # ticks
busy() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8}' /proc/stat; } # whole machine: server, PostgreSQL, wrk
paid_of() { q "SELECT count(*) FROM orders WHERE payment_status = 'Paid' AND order_number LIKE '$(prefix_of "$1")-%'"; }
commits() { q "SELECT xact_commit FROM pg_stat_database WHERE datname = '$BENCH_DB'"; }

exec 9> /tmp/paysync-bench.lock; flock 9
# Whatever ends the script stops the server and removes the signed requests (gigabytes) and the bench's private key;
# the wrk outputs stay, to read why a run failed.
trap 'stop_paysync; rm -f "$WORK"/*.txt "$WORK"/platform-key.pem' EXIT
rm -rf "$WORK"; mkdir -p "$WORK"
: > "$RESULT.rows"
rm -f "$OUT"/b1a-*-rates.txt

# Both adapters on, with the keys the requests are signed with; start_paysync passes the environment on.
python3 bench/sign-adapters.py keys "$WORK"
export PAYSYNC_ADAPTERS_STRIPE_ENABLED=true PAYSYNC_ADAPTERS_STRIPE_WEBHOOK_SECRET="$B1A_STRIPE_SECRET" \
  PAYSYNC_ADAPTERS_WECHATPAY_ENABLED=true PAYSYNC_ADAPTERS_WECHATPAY_APIV3_KEY="$B1A_APIV3_KEY" \
  PAYSYNC_ADAPTERS_WECHATPAY_PLATFORM_CERTIFICATES="file:$PWD/$WORK/platform-cert.pem" \
  PAYSYNC_GATEWAY_TOLERANCE_SECONDS=$TOLERANCE PAYSYNC_ADAPTERS_STRIPE_TOLERANCE_SECONDS=$TOLERANCE \
  PAYSYNC_ADAPTERS_WECHATPAY_TOLERANCE_SECONDS=$TOLERANCE

# ORDERS Pending orders per cell, 10.00 each (the schema migrated by Paysync itself)
fresh_db
start_paysync "$OUT/b1-adapters-migrate.log"; wait_ready > /dev/null; stop_paysync
for c in $CELLS; do
  q "INSERT INTO orders (order_number, amount, currency, payment_status, sync_status, sync_attempts, created_at)
     SELECT '$(prefix_of "$c")-' || i, 10.00, '$(currency_of "$c")', 'Pending', 'Pending', 0, now()
     FROM generate_series(1, $ORDERS) i"
done
q "VACUUM ANALYZE" > /dev/null

# Every slice signed now, as many at once as there are cores: the file wrk reads, one request per line
sign_slice() { # sign_slice CELL SLICE
  local first count
  first=$(first_of "$2"); count=$(count_of "$2")
  case "$1" in
    plain) python3 bench/sign-callbacks.py "$first" "$count" "$BENCH_SECRET" | awk -F'\t' -v OFS='\t' \
      '{print "/api/payments/callback", "Content-Type", "application/json", "webhook-id", $1, "webhook-timestamp", $2,
        "webhook-signature", $3, $4}' ;;
    stripe) python3 bench/sign-adapters.py stripe "$first" "$count" ;;
    wechatpay) python3 bench/sign-adapters.py wechatpay "$first" "$count" "$WORK" ;;
  esac > "$WORK/$1-$2.txt"
}
signing=()
for slice in $(seq 0 "$REPS"); do
  for c in $CELLS; do
    sign_slice "$c" "$slice" & signing+=($!)
    if [ ${#signing[@]} -ge "$(nproc)" ]; then wait "${signing[0]}"; signing=("${signing[@]:1}"); fi
  done
done
for p in "${signing[@]}"; do wait "$p"; done
q "CHECKPOINT" > /dev/null

start_paysync "$OUT/b1-adapters.log"
wait_ready > /dev/null

# wrk_run CELL SLICE SECONDS OUTFILE, then checks that the run applied what it was answered: fails loudly otherwise
wrk_run() {
  local cell=$1 slice=$2 out=$4 before requests outcomes paid
  before=$(paid_of "$cell")
  B1_THREADS=2 B1_REQUESTS="$WORK/$cell-$slice.txt" wrk -t2 -c"$CONNS" -d"${3}s" --latency \
    -s bench/adapter-callbacks.lua "http://127.0.0.1:$BENCH_PORT" > "$out"
  requests=$(awk '/requests in/ {print $1}' "$out")
  outcomes=$(sed -n 's/^outcomes: //p' "$out")
  paid=$(( $(paid_of "$cell") - before ))
  if [ "$requests" -gt "$(count_of "$slice")" ]; then
    echo "FAILED: $cell ($out) sent $requests requests for $(count_of "$slice") orders: raise B1A_MAX_RATE" >&2; exit 1
  fi
  if [ "$outcomes" != "paid=$requests" ] || [ "$paid" -lt "$requests" ]; then
    echo "FAILED: $cell ($out): $requests answers ($outcomes) but $paid orders Paid; its requests were refused" \
      "or not applied, see $OUT/b1-adapters.log" >&2
    exit 1
  fi
  RUN_PAID=$paid
}

hz=$(getconf CLK_TCK)
for c in $CELLS; do wrk_run "$c" 0 "$WARM" "$WORK/$c-warmup.out"; done
for rep in $(seq 1 "$REPS"); do
  for c in $CELLS; do
    q "CHECKPOINT" > /dev/null # no checkpoint left over from the last run's writes
    commits0=$(commits); cpu0=$(cpu_of "$PAYSYNC_PID"); busy0=$(busy)
    wrk_run "$c" "$rep" "$SECS" "$WORK/$c-run-$rep.out"
    read -r cpr server machine <<< "$(python3 -c "p = max($RUN_PAID, 1)
print(round(($(commits) - $commits0) / p, 2), round(($(cpu_of "$PAYSYNC_PID") - $cpu0) * 1000 / $hz / p, 3),
      round(($(busy) - $busy0) * 1000 / $hz / p, 3))")"
    rps=$(awk '/Requests\/sec/ {print $2}' "$WORK/$c-run-$rep.out")
    lat=$(grep -E '^latency p50' "$WORK/$c-run-$rep.out" | sed 's/latency //')
    echo "| $c | $rep | $rps | $RUN_PAID | $lat | $cpr | $server | $machine |" >> "$RESULT.rows"
    echo "$rps" >> "$OUT/b1a-$c-rates.txt"
  done
done
stop_paysync

median() { sort -n "$OUT/b1a-$1-rates.txt" | sed -n "$(( (REPS + 1) / 2 ))p"; }
range() { sort -n "$OUT/b1a-$1-rates.txt" | sed -n '1p;$p' | paste -sd- | sed 's/-/ to /'; }
ratio() { python3 -c "print(round(float('$1') / float('$2'), 2))"; }
rounds() { paste -d' ' "$OUT/b1a-$1-rates.txt" "$OUT/b1a-plain-rates.txt" | # each round's own ratio
  while read -r a b; do ratio "$a" "$b"; done | paste -sd' '; }
{
  echo "B1 through the adapters $(date -u +%FT%TZ), $(nproc) cores, $CONNS connections, $REPS x ${SECS} s after a ${WARM} s warm-up per cell, pool ${BENCH_POOL:-8}, one Paysync, the cells' runs alternating"
  echo
  echo "| cell | run | req/s | orders paid | latency (closed loop) | commits/req | CPU ms/req: server | machine |"
  echo "|---|---|---|---|---|---|---|---|"
  cat "$RESULT.rows"
  echo
  echo "commits/req: PostgreSQL's counters, which its backends report up to seconds late, so near 1 rather than exact."
  echo
  for c in $CELLS; do
    p=$(prefix_of "$c")
    paid=$(q "SELECT count(*) FROM orders WHERE payment_status = 'Paid' AND order_number LIKE '$p-%'")
    hist=$(q "SELECT count(*) FROM order_transitions WHERE to_status = 'Paid' AND order_number LIKE '$p-%'")
    echo "- $c: median $(median "$c") req/s (range $(range "$c")); $paid orders $p-n Paid, $hist Pending -> Paid history rows"
    [ "$paid" = "$hist" ] || echo "  FAILED: Paid orders and history rows differ"
  done
  echo
  echo "stripe / plain: $(ratio "$(median stripe)" "$(median plain)") (each round: $(rounds stripe)); target >= 0.5"
  echo "wechatpay / plain: $(ratio "$(median wechatpay)" "$(median plain)") (each round: $(rounds wechatpay)); target >= 0.5"
} | tee "$RESULT"
rm -rf "$WORK" "$OUT"/b1a-*-rates.txt
! grep -q FAILED "$RESULT"
