#!/usr/bin/env bash
# B3: growth. Claim time and orders/s with B3_SIZES rows in orders (default 10 k, 100 k, 1 M) and a constant
# B3_ELIGIBLE Paid unsynced orders; the rest is history (85 % Paid + Completed, 5 % Failed, 10 % Expired, the
# last two never synced) plus NEVER_PAID never-paid orders. Paysync only, B3_WORKERS workers, stub at 0 ms.
# Usage: bash bench/b3-growth.sh      Writes target/bench/b3.md and the plans target/bench/b3-<rows>-plan.txt.
# Fails if the claim statement's plan reads orders with a Seq Scan. The check is on the custom plan, the one
# PostgreSQL runs for camel-sql's prepared claim (plan_cache_mode auto keeps custom plans: the generic one is
# estimated far dearer); the generic plan is printed after it for reference.
# Each cell runs under flock /tmp/paysync-bench.lock.
BENCH_DB=${BENCH_DB:-paysync_bench_sync}
BENCH_PORT=${BENCH_PORT:-18190}
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/sync-common.sh"
SIZES=${B3_SIZES:-"10000 100000 1000000"}
ELIGIBLE=${B3_ELIGIBLE:-10000}
W=${B3_WORKERS:-1}

setup_db
start_stub "$STUB_PORT"
RESULTS="$OUT/b3-cells.tsv"
: > "$RESULTS"

# The real claim statement with its parameters as literals, EXPLAIN (ANALYZE, BUFFERS) in a rolled-back
# transaction, once as a custom plan and once as the generic plan a prepared statement ends up with.
explain_claim() {
  local sql; sql=$(sed -e '/^--/d' src/main/resources/sql/postgresql/claim-paid-orders.sql)
  local lit; lit=$(printf '%s' "$sql" | sed -e "s/:#claimToken/'explain'/" -e "s/:#leaseUntil/now() + interval '2 minutes'/" \
      -e "s/:#now/now()/g" -e "s/:#includeFinalFailures/0/" -e "s/:#batchSize/${BENCH_SYNC_BATCH:-50}/")
  local prep; prep=$(printf '%s' "$sql" | sed -e "s/:#claimToken/\$1/" -e "s/:#leaseUntil/\$2/" -e "s/:#now/\$3::timestamptz/g" \
      -e "s/:#includeFinalFailures/\$4/" -e "s/:#batchSize/\$5/")
  q <<SQL
BEGIN;
EXPLAIN (ANALYZE, BUFFERS) $lit;
ROLLBACK;
SET plan_cache_mode = force_generic_plan;
PREPARE claim(text, timestamptz, timestamptz, int, int) AS $prep;
BEGIN;
EXPLAIN (ANALYZE, BUFFERS) EXECUTE claim('explain', now() + interval '2 minutes', now(), 0, ${BENCH_SYNC_BATCH:-50});
ROLLBACK;
SQL
}

for rows in $SIZES; do
  tag="b3-$rows"
  history=$((rows - ELIGIBLE - NEVER_PAID))
  exec 9> "$LOCK"; flock 9
  reset_data "$history" 0
  curl -fs -X POST "$BENCH_STUB_URL/reset?delayMs=0" > /dev/null
  start_workers paysync "$W" "$tag"
  q -c "SELECT /* bench-monitor */ pg_stat_statements_reset()" > /dev/null
  seed_backlog paysync "$ELIGIBLE"
  forget_ranges; remaining D- > /dev/null # the range is read before the clock starts
  t0=$(date +%s%N)
  while [ "$(remaining D-)" != 0 ]; do
    sleep 0.1
  done
  t1=$(date +%s%N)
  read -r claims claim_ms < <(q -F ' ' -c "SELECT /* bench-monitor */ sum(calls), round((sum(total_exec_time) / sum(calls))::numeric, 3)
      FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
      WHERE d.datname = current_database() AND query LIKE '%taken_over_claim = CASE%'")
  counts=$(curl -fs "$BENCH_STUB_URL/counts")
  early_db=$(early_from_db)
  stop_workers
  # the plan with the eligible orders back in the queue (as they were when the drain began)
  q -c "UPDATE orders SET sync_status = 'Pending', third_party_guid = NULL, synced_at = NULL, claim_token = NULL,
        lease_until = NULL, sync_attempts = 0 WHERE order_number LIKE 'D-%'" -c "VACUUM ANALYZE orders"
  explain_claim > "$OUT/$tag-plan.txt"
  flock -u 9
  rate=$(python3 -c "print(round($ELIGIBLE / (($t1 - $t0) / 1e9), 1))")
  index=$(sed -n '1,/Execution Time/p' "$OUT/$tag-plan.txt" | grep -oE "Index (Only )?Scan using [a-z_]+ on orders|Bitmap Index Scan on [a-z_]+" | sort -u | paste -sd, -)
  seq=$(sed -n '1,/Execution Time/p' "$OUT/$tag-plan.txt" | grep -c "Seq Scan on orders" || true)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$rows" "$rate" "$claim_ms" "$claims" "$index" "$seq" \
    "$(echo "$counts" | jsonfield duplicates)" "$(( $(echo "$counts" | jsonfield early) + early_db ))" \
    "$(grep -E "^ *Execution Time" "$OUT/$tag-plan.txt" | awk '{print $3}' | paste -sd/ -)" | tee -a "$RESULTS"
done

python3 - "$RESULTS" "$ELIGIBLE" > "$OUT/b3.md" <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
print(f"| Rows in orders | Orders/s (drain of {sys.argv[2]}) | Claim mean ms (pg_stat_statements, claims) | EXPLAIN ANALYZE ms custom / generic plan | Index used | Seq Scan on orders | Duplicates | Early |")
print("|---|---|---|---|---|---|---|---|")
for r in rows:
    print(f"| {int(r[0]):,} | {r[1]} | {r[2]} ({r[3]}) | {r[8]} | {r[4]} | {r[5]} | {r[6]} | {r[7]} |")
if len(rows) > 1:
    print()
    print(f"1 M / 10 k: orders/s **{round(float(rows[-1][1]) / float(rows[0][1]), 2)} x** (target >= 0.85), "
          f"claim time **{round(float(rows[-1][2]) / float(rows[0][2]), 2)} x** (target <= 1.5)")
PY
cat "$OUT/b3.md"
if awk -F'\t' '$6 != 0 {bad=1} END {exit !bad}' "$RESULTS"; then
  echo "FAIL: the claim statement reads orders with a Seq Scan (see $OUT/b3-*-plan.txt)" >&2; exit 1
fi
