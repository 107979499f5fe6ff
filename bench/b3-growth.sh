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
# Each size is measured B3_REPS times, the sizes in turn, and the medians compared: one drain of 10,000 orders lasts
# 15 to 25 s, and single drains can give 0.74 x and 1.59 x an hour apart (docs/benchmarks.md, B3).
REPS=${B3_REPS:-3}
# Before the timed drain the same workers drain B3_WARMUP orders W-1..n, whose rows and send keys are then deleted
# and vacuumed away: the timed drain runs on compiled code, not on a JIT still warming up.
WARMUP=${B3_WARMUP:-10000}

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

# A worker that stopped draining ends B3 after 10 minutes instead of leaving it waiting for good.
not_drained() { echo "B3: $1 orders not drained in 10 minutes (see $OUT/$tag-w*.log)" >&2; exit 1; }

for rep in $(seq 1 "$REPS"); do
for rows in $SIZES; do
  tag="b3-$rows-$rep"
  history=$((rows - ELIGIBLE - NEVER_PAID))
  exec 9> "$LOCK"; flock 9
  reset_data "$history" 0
  curl -fs -X POST "$BENCH_STUB_URL/reset?delayMs=0" > /dev/null
  start_workers paysync "$W" "$tag"
  if [ "$WARMUP" -gt 0 ]; then
    seed_backlog paysync "$WARMUP" W-
    drained W- "$(id_range W-)" 600 || not_drained W-
    # their history rows stay: order_transitions refuses deletes (its trigger), and the claim does not read it
    q -c "DELETE FROM camel_messageprocessed WHERE messageId LIKE 'W-%'" -c "DELETE FROM orders WHERE order_number LIKE 'W-%'"
    q -c "VACUUM ANALYZE orders" -c "VACUUM ANALYZE camel_messageprocessed" -c "CHECKPOINT"
    curl -fs -X POST "$BENCH_STUB_URL/reset?delayMs=0" > /dev/null # the warm-up's calls are not counted
  fi
  q -c "SELECT /* bench-monitor */ pg_stat_statements_reset()" > /dev/null
  seed_backlog paysync "$ELIGIBLE"
  range=$(id_range D-) # before the clock starts
  t0=$(date +%s%N)
  drained D- "$range" 600 || not_drained D-
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
done

python3 - "$RESULTS" "$ELIGIBLE" "$WARMUP" > "$OUT/b3.md" <<'PY'
import statistics as st, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
sizes = list(dict.fromkeys(r[0] for r in rows))
by = {n: [r for r in rows if r[0] == n] for n in sizes}
print(f"Drain of {sys.argv[2]} eligible orders by one worker, stub at 0 ms, after a warm-up drain of {sys.argv[3]} "
      f"(deleted before the timed one); {len(by[sizes[0]])} repetition(s) per size, the sizes in turn.")
print()
print("| Rows in orders | Orders/s: median (each run) | Claim mean ms: median (each run; claims) | EXPLAIN ANALYZE ms custom / generic plan | Index used | Seq Scan on orders | Duplicates | Early |")
print("|---|---|---|---|---|---|---|---|")
med = {}
for n in sizes:
    rs = by[n]
    rate = st.median(float(r[1]) for r in rs); claim = st.median(float(r[2]) for r in rs); med[n] = (rate, claim)
    print(f"| {int(n):,} | {rate:.1f} ({', '.join(r[1] for r in rs)}) | {claim:.3f} ({', '.join(r[2] for r in rs)}; "
          f"{', '.join(r[3] for r in rs)}) | {', '.join(r[8] for r in rs)} | {', '.join(sorted(set(r[4] for r in rs)))} | "
          f"{sum(int(r[5]) for r in rs)} | {sum(int(r[6]) for r in rs)} | {sum(int(r[7]) for r in rs)} |")
if len(sizes) > 1:
    (r0, c0), (r1, c1) = med[sizes[0]], med[sizes[-1]]
    print()
    print(f"{int(sizes[-1]):,} / {int(sizes[0]):,} rows, medians: orders/s **{round(r1 / r0, 2)} x** (target >= 0.85), "
          f"claim time **{round(c1 / c0, 2)} x** (target <= 1.5)")
PY
cat "$OUT/b3.md"
if awk -F'\t' '$6 != 0 {bad=1} END {exit !bad}' "$RESULTS"; then
  echo "FAIL: the claim statement reads orders with a Seq Scan (see $OUT/b3-*-plan.txt)" >&2; exit 1
fi
