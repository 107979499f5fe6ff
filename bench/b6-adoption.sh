#!/usr/bin/env bash
# B6: Paysync beside a shop's own orders table (docs/adopting.md), the shop's table in a PostgreSQL database of its
# own (paysync.shop.db.url), the worked example's SQL (routes/examples/legacy-orders/postgresql), side by side in one
# run:
#   cutover     the intake taking over ROWS shop rows (a third paid with a GUID, a third paid without, a third not
#               paid) with -Xmx256m, timed from ready to the last row taken; beside B5's settlement file of as many
#               rows on the same server (cutover, settlement, cutover). Target: cutover rows/s >= settlement rows/s.
#   keeping up  at 50 % of B1's Paysync peak (measured in the same run): signed callbacks at that rate for orders the
#               intake took from the shop's table, while the shop inserts new rows at the same rate; the write-back
#               delivering each Paid to the shop's row. Target: write-back lag p99 (the shop's row written, from the
#               trigger below, minus the order's paid_at) <= two sync periods (2 x paysync.sync.period-ms); the
#               intake's backlog of new rows sampled every second.
# Usage: bash bench/b6-adoption.sh   (B6_ROWS=1000000, B6_SECS=30 of fixed rate after B6_WARM=15; B6_PARTS=cutover
# runs the cutover beside the settlement file alone). Writes target/bench/b6.md. Needs wrk (B1's peak) and pgbench
# (the shop's inserts).
source "$(dirname "$0")/common.sh"
ROWS=${B6_ROWS:-1000000}
SECS=${B6_SECS:-30}
WARM=${B6_WARM:-15}
HEAP=${B6_HEAP:-256m}
SHOP_DB=${BENCH_DB}_shop
EXAMPLE=routes/examples/legacy-orders/postgresql
SYNC_PERIOD_MS=$(sed -n 's/^paysync.sync.period-ms = //p' application.properties)
B6_RESULT="$OUT/b6.md"
: > "$B6_RESULT.rows"
: > "$OUT/b6-fixed.md"
INGEST=bench/ingest/target
mvn -q -B -ntp -f bench/ingest/pom.xml package
CP="$INGEST/classes:$INGEST/lib/*"

qs() { psql -Atq -d "$SHOP_DB" -c "$1"; }
qp() { psql -Atq -d "$BENCH_DB" -c "$1"; }

fresh_shop() { # fresh_shop: the shop's database with the example's table, and a trigger that stamps each write-back
  psql -q -d postgres -c "DROP DATABASE IF EXISTS $SHOP_DB WITH (FORCE)" -c "CREATE DATABASE $SHOP_DB"
  psql -q -d "$SHOP_DB" -f "$EXAMPLE/shop-table.sql" \
    -c "CREATE TABLE bench_written (order_number VARCHAR(64) PRIMARY KEY, written_at TIMESTAMPTZ NOT NULL)" \
    -c "CREATE FUNCTION bench_stamp() RETURNS trigger LANGUAGE plpgsql AS \$\$ BEGIN
          IF NOT OLD.payment AND NEW.payment THEN
            INSERT INTO bench_written VALUES (NEW.OrderNumber, clock_timestamp()) ON CONFLICT DO NOTHING;
          END IF; RETURN NEW; END \$\$" \
    -c "CREATE TRIGGER tr_bench_stamp AFTER UPDATE ON Orders FOR EACH ROW EXECUTE FUNCTION bench_stamp()"
}

# start_adopting <log> [VAR=value...]: the jar with the shop's table as its intake's, and the extra settings given
ADOPT_VARS="PAYSYNC_SHOP_DB_URL PAYSYNC_SHOP_DB_USERNAME PAYSYNC_SHOP_DB_PASSWORD PAYSYNC_SHOP_SQL_DIR
  PAYSYNC_SHOP_INTAKE_ENABLED PAYSYNC_SHOP_INTAKE_PERIOD_MS"
start_adopting() {
  local log=$1 kv; shift
  export PAYSYNC_SHOP_DB_URL="jdbc:postgresql://$PGHOST:5432/$SHOP_DB" PAYSYNC_SHOP_DB_USERNAME="$PGUSER" \
    PAYSYNC_SHOP_DB_PASSWORD= PAYSYNC_SHOP_SQL_DIR="$PWD/$EXAMPLE" PAYSYNC_SHOP_INTAKE_ENABLED=true \
    PAYSYNC_SHOP_INTAKE_PERIOD_MS=100
  for kv in "$@"; do export "${kv?}"; done
  start_paysync "$log"
  # shellcheck disable=SC2086
  unset $ADOPT_VARS
  for kv in "$@"; do unset "${kv%%=*}"; done
}

cutover() { # cutover REP
  local rep=$1 log="$OUT/b6-cutover-$1.log" gclog="$OUT/b6-gc-$1.log"
  fresh_db; fresh_shop
  qs "INSERT INTO Orders (OrderNumber, Amount, Currency, payment, PaymentTransactionId, ThirdPartyGuid, CreatedAtUtc,
      PaidAtUtc) SELECT 'C-' || g, 10.00, 'EUR', g % 3 <> 0, CASE WHEN g % 3 <> 0 THEN 'gw_c_' || g END,
      CASE WHEN g % 3 = 1 THEN 'guid-' || g END, now() AT TIME ZONE 'UTC',
      CASE WHEN g % 3 <> 0 THEN now() AT TIME ZONE 'UTC' END FROM generate_series(1, $ROWS) g"
  psql -q -d "$SHOP_DB" -c "VACUUM ANALYZE" -c "CHECKPOINT"
  start_paysync "$OUT/b6-migrate.log"; wait_ready > /dev/null; stop_paysync
  BENCH_JAVA_OPTS="-Xmx$HEAP -XX:+ExitOnOutOfMemoryError -Xlog:gc:file=$gclog" start_adopting "$log"
  wait_ready > /dev/null
  local t0 t1 before cpu0 cpu1
  t0=$(date +%s%N)
  before=$(qp "SELECT COALESCE(MAX(rows_taken), 0) FROM shop_intakes")
  cpu0=$(awk '{print $14 + $15}' "/proc/$PAYSYNC_PID/stat")
  until [ "$(qp "SELECT COALESCE(MAX(rows_taken), 0) FROM shop_intakes")" -ge "$ROWS" ]; do
    kill -0 "$PAYSYNC_PID" 2>/dev/null || { echo "paysync exited during cutover $rep (see $log)" >&2; exit 1; }
    sleep 0.2
  done
  t1=$(date +%s%N)
  cpu1=$(awk '{print $14 + $15}' "/proc/$PAYSYNC_PID/stat")
  local hwm; hwm=$(awk '/VmHWM/ {printf "%.0f", $2 / 1024}' "/proc/$PAYSYNC_PID/status")
  stop_paysync
  local orders paid recorded rate secs heap cpu
  orders=$(qp "SELECT count(*) FROM orders")
  [ "$orders" = "$ROWS" ] || { echo "cutover $rep took $orders of $ROWS rows" >&2; exit 1; }
  paid=$(qp "SELECT count(*) FROM orders WHERE payment_status = 'Paid'")
  recorded=$(qp "SELECT count(*) FROM orders WHERE sync_status = 'Completed'")
  secs=$(python3 -c "print(f'{($t1 - $t0) / 1e9:.1f}')")
  rate=$(python3 -c "print(round(($ROWS - $before) / (($t1 - $t0) / 1e9)))")
  cpu=$(python3 -c "print(f'{($cpu1 - $cpu0) / $(getconf CLK_TCK) * 1e6 / ($ROWS - $before):.0f}')")
  heap=$(grep -oE '[0-9]+M->[0-9]+M' "$gclog" | sed 's/.*->//; s/M//' | sort -n | tail -1)
  echo "$rate" >> "$OUT/b6-cutover-rates.txt"
  echo "| cutover | $rep | $rate rows/s | $secs s | $orders ($paid Paid, $recorded Completed; $before taken before ready) | ${heap:-?} MB | $hwm MB | $cpu us |" >> "$B6_RESULT.rows"
  echo "cutover $rep: $rate rows/s ($secs s), heap after GC at most ${heap:-?} MB of $HEAP"
}

: > "$OUT/b6-cutover-rates.txt"
cutover 1
# B5's settlement file of as many rows, on the same server, between the two cutovers.
B5_ROWS=$ROWS B5_AS_LIBRARY=1
source bench/b5-settlement.sh
settle 1
cutover 2
SETTLE=$(cat "$OUT/b5-rates.txt" | tail -1)
SLOWEST=$(sort -n "$OUT/b6-cutover-rates.txt" | head -1)

if [ "${B6_PARTS:-all}" = cutover ]; then
  { echo "B6 (cutover only) $(date -u +%FT%TZ), $(nproc) cores, commit $(git rev-parse --short HEAD), $ROWS rows, -Xmx$HEAP"
    echo; cat "$B6_RESULT.rows" "$OUT/b5.md.rows"; echo
    echo "Slowest cutover / settlement: $(python3 -c "print(f'{$SLOWEST / $SETTLE:.2f}')") x (target >= 1.0)"
  } > "$B6_RESULT"
  cat "$B6_RESULT"; exit 0
fi

# Keeping up: B1's Paysync peak in this run, then adoption at half of it.
B1_OUT=$(B1_ONLY=paysync B1_REPS=3 B1_WARM=30 bash bench/b1-callbacks.sh 16 20 | tee /dev/stderr)
PEAK=$(echo "$B1_OUT" | sed -n 's/.*paysync peak (median of \([^)]*\)): \([0-9.]*\) req\/s$/\2/p')
RATE=$(python3 -c "print(int($PEAK * 0.5))")
N=$(( RATE * (SECS + WARM) + 1000 ))
fresh_db; fresh_shop
qs "INSERT INTO Orders (OrderNumber, Amount, Currency, payment, CreatedAtUtc)
    SELECT 'B-' || g, 10.00, 'EUR', FALSE, now() AT TIME ZONE 'UTC' FROM generate_series(1, $N) g"
qs "CREATE SEQUENCE bench_new_orders"
start_paysync "$OUT/b6-migrate.log"; wait_ready > /dev/null; stop_paysync
start_adopting "$OUT/b6-keepup.log" PAYSYNC_SHOP_WRITEBACK_ENABLED=true PAYSYNC_SHOP_WRITEBACK_PERIOD_MS=100 \
  PAYSYNC_SHOP_WRITEBACK_BATCH_SIZE=500
wait_ready > /dev/null
until [ "$(qp "SELECT COALESCE(MAX(rows_taken), 0) FROM shop_intakes")" -ge "$N" ]; do sleep 0.2; done
cat > "$OUT/b6-shop-insert.sql" <<SQL
INSERT INTO Orders (OrderNumber, Amount, Currency, payment, CreatedAtUtc)
VALUES ('N-' || nextval('bench_new_orders'), 10.00, 'EUR', FALSE, now() AT TIME ZONE 'UTC');
SQL
pgbench -n -d "$SHOP_DB" -c 2 -j 1 -R "$RATE" -T $((SECS + WARM)) -f "$OUT/b6-shop-insert.sql" \
  > "$OUT/b6-pgbench.out" 2>&1 &
INSERTER=$!
: > "$OUT/b6-backlog.txt"
( for _ in $(seq 1 $((SECS + WARM))); do
    echo "$(( $(qs "SELECT count(*) FROM Orders") - $(qp "SELECT MAX(rows_taken) FROM shop_intakes") ))" \
      >> "$OUT/b6-backlog.txt"
    sleep 1
  done ) & SAMPLER=$!
java -cp "$CP" io.paysync.bench.LoadClient "keepup-at-50pct" "http://127.0.0.1:$BENCH_PORT" "$RATE" "$SECS" "$WARM" 16 1 \
  "$BENCH_SECRET" "$OUT/b6-fixed.md" > "$OUT/b6-load.out" 2>&1 || echo "the fixed-rate client had errors (see $OUT/b6-load.out)"
wait "$INSERTER" || true
wait "$SAMPLER" || true
# Every Paid delivered, then the lag per order: the shop's row written minus the transition's time.
PAID=$(qp "SELECT count(*) FROM orders WHERE payment_status = 'Paid'")
for _ in $(seq 1 300); do
  [ "$(qs "SELECT count(*) FROM bench_written")" -ge "$PAID" ] && break; sleep 0.2
done
stop_paysync
WRITTEN=$(qs "SELECT count(*) FROM bench_written")
qp "COPY (SELECT order_number, extract(epoch FROM paid_at) FROM orders WHERE payment_status = 'Paid') TO STDOUT" \
  > "$OUT/b6-paid.tsv"
qs "COPY (SELECT order_number, extract(epoch FROM written_at) FROM bench_written) TO STDOUT" > "$OUT/b6-written.tsv"
LAGS=$(python3 - "$OUT/b6-paid.tsv" "$OUT/b6-written.tsv" "$WARM" <<'PY'
import sys
paid = dict(l.split('\t') for l in open(sys.argv[1]).read().split('\n') if l)
written = dict(l.split('\t') for l in open(sys.argv[2]).read().split('\n') if l)
first = min(float(v) for v in paid.values())
# Only the measured seconds, as the client records them: orders paid after its warm-up.
lags = sorted(float(written[o]) - float(p) for o, p in paid.items() if o in written and float(p) >= first + float(sys.argv[3]))
pick = lambda q: lags[min(len(lags) - 1, int(q * len(lags)))]
print(f"{len(lags)} {pick(0.5):.3f} {pick(0.99):.3f} {lags[-1]:.3f}")
PY
)
read -r LAG_N LAG_P50 LAG_P99 LAG_MAX <<< "$LAGS"
BACKLOG_MAX=$(sort -n "$OUT/b6-backlog.txt" | tail -1)
INSERTED=$(qs "SELECT count(*) FROM Orders WHERE OrderNumber LIKE 'N-%'")
{
  echo "B6 $(date -u +%FT%TZ), $(nproc) cores, commit $(git rev-parse --short HEAD), $ROWS rows, -Xmx$HEAP, PostgreSQL $(psql -Atq -d postgres -c 'SHOW server_version')"
  echo
  echo "| cell | run | rate | time | result | heap after GC, max | RSS peak | server CPU per row |"
  echo "|---|---|---|---|---|---|---|---|"
  cat "$B6_RESULT.rows" "$OUT/b5.md.rows"
  echo
  echo "Slowest cutover / settlement: $(python3 -c "print(f'{$SLOWEST / $SETTLE:.2f}')") x (target >= 1.0)"
  echo
  echo "Keeping up at 50 % of B1's Paysync peak ($PEAK req/s): $RATE callbacks/s and $RATE new shop rows/s for $((SECS + WARM)) s"
  echo
  echo "| measure | value |"
  echo "|---|---|"
  echo "| Paid orders / written back to the shop's rows | $PAID / $WRITTEN |"
  echo "| write-back lag (after the first $WARM s, $LAG_N orders): p50, p99, max | $LAG_P50 s, **$LAG_P99 s**, $LAG_MAX s (target p99 <= $(python3 -c "print(2 * $SYNC_PERIOD_MS / 1000)") s) |"
  echo "| new shop rows inserted / intake backlog sampled each second, max | $INSERTED / $BACKLOG_MAX rows |"
  echo
  cat "$OUT/b6-fixed.md"
} > "$B6_RESULT"
cat "$B6_RESULT"
