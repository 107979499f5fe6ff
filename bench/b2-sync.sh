#!/usr/bin/env bash
# B2: sync throughput and latency, Paysync against db-scheduler (lock-and-fetch) on the same stub and database.
# Usage: bash bench/b2-sync.sh [delays] [workers] [peers]     defaults: "0 50" "1 2 4" "paysync dbs"
#        B2_REPS=N runs each delay and worker count N times, the peers alternating within each repetition; the
#        summary then gives each ratio's median, its range and every repetition's ratio.
# Each cell runs under flock /tmp/paysync-bench.lock. Writes target/bench/b2.md (+ per-cell logs and statements).
#
# One cell = one peer, one stub delay, W worker processes:
#  1. fresh data: NEVER_PAID never-paid orders NP-*, feeder orders F-* (Pending), no backlog; start W workers;
#  2. drain: B2_BACKLOG Paid orders D-* appear in one commit; after a warm-up (B2_WARM s at least, then until the
#     workers' JIT compilers are quiet, at most B2_MAX_WARM s), a B2_WINDOW s window gives
#     orders/s, commits per order (pg_stat_database.xact_commit), statements per order (pg_stat_statements) and
#     where the window's CPU went (workers, PostgreSQL, stub: ms per order); a cell whose backlog ran out before
#     the window ended, or where a statement ran for more than 20 s (a stall), is marked and gets no ratio;
#  3. the rest of the backlog is withdrawn (never sent), then the feeder pays F-* at a fixed rate below peak
#     (B2_RATE_0 or B2_RATE_50 per worker) for B2_FEED s: Paid -> synced p50/p99 from paid_at to synced_at;
#  4. correctness: duplicates (a second record at the stub for one order) and early sends (a send for an order
#     never paid, or before its paid_at) from the stub and the database.
BENCH_DB=${BENCH_DB:-paysync_bench_sync}
BENCH_PORT=${BENCH_PORT:-18190}
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/sync-common.sh"
DELAYS=${1:-"0 50"}
WORKERS=${2:-"1 2 4"}
PEERS=${3:-"paysync dbs"}
REPS=${B2_REPS:-1}
# 30 s of draining before the window, so both peers are measured compiled (steady state): with 4 s, a 2-worker cell on
# a slow machine measures the JIT (1.41 x with 4 s, 1.93 x with 30 s; docs/benchmarks.md). The backlog must outlast
# warm-up and window at the fastest peer's rate: at about 5,000 orders/s (Paysync, 4 workers, 0 ms), 60 s of warm-up
# and 20 s of window need 400,000; with the warm-up lasting until the JIT is quiet (up to B2_MAX_WARM s), 800,000.
BACKLOG=${B2_BACKLOG:-800000}
WARM=${B2_WARM:-30}
MAX_WARM=${B2_MAX_WARM:-120}
# Delayed cells only: seconds of draining at 0 ms before the delay is set (a 50 ms cell runs too few orders for the JIT:
# cold, Paysync's worker spends most of its samples interpreted). Both peers alike.
PREWARM=${B2_PREWARM:-40}
WINDOW=${B2_WINDOW:-20}
# Delayed cells: a longer window, since at about 19 orders/s per worker one order is 0.26 % of a 20 s window.
WINDOW_DELAYED=${B2_WINDOW_DELAYED:-40}
FEED=${B2_FEED:-12}
RATE_0=${B2_RATE_0:-25}   # per worker, stub 0 ms
RATE_50=${B2_RATE_50:-8}  # per worker, stub 50 ms (one call in flight per worker: at most 20/s)

setup_db
start_stub "$STUB_PORT"
SUFFIX=${B2_SUFFIX:-}      # e.g. -c8 for a second configuration, so its files sit beside the first
RESULTS="$OUT/b2$SUFFIX-cells.tsv"
: > "$RESULTS"
: > "$OUT/b2$SUFFIX-warmup.txt"

cell() { # cell <peer> <delay> <workers> <repetition>
  local peer=$1 delay=$2 w=$3 r=$4 tag="b2$SUFFIX-$1-$2ms-$3w"
  [ "$REPS" = 1 ] || tag="$tag-r$r"
  local rate=$(( (delay == 0 ? RATE_0 : RATE_50) * w )); local feed=$((rate * FEED))
  exec 9> "$LOCK"; flock 9
  reset_data 0 "$feed"
  curl -fs -X POST "$BENCH_STUB_URL/reset?delayMs=$delay" > /dev/null
  start_workers "$peer" "$w" "$tag"
  seed_backlog "$peer" "$BACKLOG"
  if [ "$delay" != 0 ] && [ "$PREWARM" -gt 0 ]; then
    # Compile first: drain at 0 ms for PREWARM s, then the cell's delay. The stub keeps its counts and keys across the
    # change, so a duplicate or an early send during the prewarm counts too (its Requests include the prewarm's).
    curl -fs -X POST "$BENCH_STUB_URL/delay?delayMs=0" > /dev/null
    sleep "$PREWARM"
    curl -fs -X POST "$BENCH_STUB_URL/delay?delayMs=$delay" > /dev/null
  fi
  # More workers than cores: each JVM gets a share of the CPU to compile with (4 workers, 0 ms: CPU per order of both
  # peers' workers 3 to 5 times that of 2 after 30 s; with 60 s, Paysync 1,217 -> 2,710/s, db-scheduler 719 -> 1,105).
  # Then on until the JIT is quiet: after 30 s (2 workers) and 60 s (4) it still took a third of their CPU in the window.
  local warmed; warmed=$(settle "$(( w > $(nproc) ? 2 * WARM : WARM ))" "$MAX_WARM")
  q -c "SELECT /* bench-monitor */ pg_stat_statements_reset()" > /dev/null
  read -r c0 x0 s0 n0 t0 < <(snapshot)
  read -r cw0 cp0 cs0 cj0 < <(cpu_snapshot)
  local window=$WINDOW; [ "$delay" != 0 ] && window=$WINDOW_DELAYED
  sleep "$window"
  read -r cw1 cp1 cs1 cj1 < <(cpu_snapshot)
  read -r c1 x1 s1 n1 t1 < <(snapshot)
  echo "$tag: warm-up $warmed s; the JIT in the window $((cj1 - cj0)) ms of CPU of the workers' $((cw1 - cw0))" \
    >> "$OUT/b2$SUFFIX-warmup.txt"
  top_statements > "$OUT/$tag-statements.txt"
  local mark=ok
  warn_long_statements "$tag" || mark=stalled
  if [ "$(q -c "SELECT /* bench-monitor */ count(*) FROM orders WHERE order_number LIKE 'D-%' AND sync_status <> 'Completed'")" \
       -lt "$(( BACKLOG / 100 ))" ]; then
    echo "BACKLOG RAN OUT in $tag: raise B2_BACKLOG (now $BACKLOG)" >&2; mark=backlog-out
  fi
  # withdraw the rest of the backlog: never sent (claims already held finish normally). The workers still write
  # completions several rows at a time meanwhile, so this one big UPDATE can deadlock with one of them: try again.
  for try in 1 2 3; do
    if [ "$peer" = paysync ]; then
      q -c "UPDATE orders SET payment_status = 'Failed' WHERE order_number LIKE 'D-%' AND sync_status = 'Pending'" && break
    else
      q -c "DELETE FROM scheduled_tasks WHERE NOT picked" -c "UPDATE orders SET payment_status = 'Failed'
            WHERE order_number LIKE 'D-%' AND sync_status = 'Pending' AND id::text NOT IN (SELECT task_instance FROM scheduled_tasks)" && break
    fi
    [ "$try" = 3 ] && { echo "could not withdraw the backlog of $tag" >&2; exit 1; }
    sleep 1
  done
  sleep 3
  java -cp "$BENCH_TOOLS_CP" io.paysync.bench.Feeder "$JDBC_URL" "$peer" "$rate" "$feed" F- > "$OUT/$tag-feeder.txt" 2>&1
  drained F- "$(id_range F-)" 30 || true # what is not synced by then counts as such in the figures below
  read -r p50 p99 fed < <(q -F ' ' -c "SELECT /* bench-monitor */
      round((percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM synced_at - paid_at)) * 1000)::numeric, 0),
      round((percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM synced_at - paid_at)) * 1000)::numeric, 0),
      count(*) FROM orders WHERE order_number LIKE 'F-%' AND sync_status = 'Completed'")
  sleep 1
  local counts; counts=$(curl -fs "$BENCH_STUB_URL/counts")
  local early_db; early_db=$(early_from_db)
  stop_workers
  flock -u 9
  local done=$((c1 - c0)); local secs; secs=$(python3 -c "print($t1 - $t0)")
  python3 - "$peer" "$delay" "$w" "$done" "$secs" "$((x1 - x0 - 1))" "$((s1 - s0))" "$((n1 - n0))" \
      "$p50" "$p99" "$fed" "$feed" "$rate" "$early_db" "$counts" "$((cw1 - cw0))" "$((cp1 - cp0))" "$((cs1 - cs0))" \
      "$mark" "$r" >> "$RESULTS" <<'PY'
import json, sys
peer, delay, w, done, secs, commits, stmts, stmts_nb, p50, p99, fed, feed, rate, early_db, counts, cw, cp, cs, mark, r \
    = sys.argv[1:]
c = json.loads(counts); done = int(done)
per = lambda v: round(int(v) / done, 2) if done else float('nan')
print("\t".join(map(str, [peer, delay, w, round(done / float(secs), 1), per(commits), per(stmts), per(stmts_nb),
      p50, p99, f"{fed}/{feed}", rate, c["duplicates"], c["early"] + int(early_db), c["requests"], c["resent"],
      per(cw), per(cp), per(cs), mark, r])))
PY
  tail -1 "$RESULTS"
}

for delay in $DELAYS; do for w in $WORKERS; do for r in $(seq 1 "$REPS"); do for peer in $PEERS; do
  cell "$peer" "$delay" "$w" "$r"
done; done; done; done

{
echo "B2 $(date -u +%FT%TZ), $(nproc) cores; per worker: batch ${BENCH_SYNC_BATCH:-50}, period/polling ${BENCH_SYNC_PERIOD_MS:-100} ms,"\
  "calls in flight ${BENCH_SYNC_CONCURRENCY:-1} (Paysync paysync.sync.concurrency = db-scheduler threads), pool ${BENCH_POOL:-8};"\
  "backlog $BACKLOG, warm-up $WARM s ($((2 * WARM)) s with more workers than cores; delayed cells: first $PREWARM s at 0 ms) then until the JIT is quiet (at most $MAX_WARM s), window $WINDOW s (delayed: $WINDOW_DELAYED s),"\
  "feed $FEED s; $REPS repetition(s) of each delay and worker count"
echo
python3 - "$RESULTS" <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
names = {"paysync": "Paysync", "dbs": "db-scheduler"}
print("| Peer | Stub | Workers | Rep | Orders/s (drain) | Commits/order | Statements/order (without BEGIN/COMMIT) | "
      "CPU ms/order workers / PostgreSQL / stub | Paid->synced p50 / p99 ms (feed rate/s) | Duplicates | Early | "
      "Requests | Resent | Cell |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    print(f"| {names[r[0]]} | {r[1]} ms | {r[2]} | {r[19]} | {r[3]} | {r[4]} | {r[5]} ({r[6]}) | {r[15]} / {r[16]} / {r[17]} "
          f"| {r[7]} / {r[8]} ({r[10]}/s, {r[9]} synced) | {r[11]} | {r[12]} | {r[13]} | {r[14]} | {r[18]} |")
from statistics import median
ratio = lambda a, b: round(float(a) / float(b), 2) if float(b) else float('nan')
span = lambda v: f"{min(v)}-{max(v)}"
by = {(r[0], r[1], r[2], r[19]): r for r in rows}
print()
print("| Stub | Workers | Orders/s Paysync / db-scheduler | Commits/order Paysync / db-scheduler |")
print("|---|---|---|---|")
for d, w in sorted({(r[1], r[2]) for r in rows}, key=lambda k: (int(k[0]), int(k[1]))):
    reps = sorted({r[19] for r in rows if (r[1], r[2]) == (d, w)}, key=int)
    pairs, bad = [], []
    for rep in reps:
        p, o = by.get(("paysync", d, w, rep)), by.get(("dbs", d, w, rep))
        if not p or not o:
            continue
        # a stalled peer or a backlog that ran out measures the cell, not the peer: that repetition gets no ratio
        wrong = [f"{names[x[0]]} {x[18]}" for x in (p, o) if x[18] != "ok"]
        if wrong:
            bad.append(" and ".join(wrong) + (f" in rep {rep}" if len(reps) > 1 else "") + f" ({p[3]} / {o[3]})")
        else:
            pairs.append((p, o))
    if not pairs:
        if bad:
            print(f"| {d} ms | {w} | no ratio: {', '.join(bad)} | |")
        continue
    speed = [ratio(p[3], o[3]) for p, o in pairs]
    commits = [ratio(p[4], o[4]) for p, o in pairs]
    mid = lambda col, side: round(median(float(pair[side][col]) for pair in pairs), 2)
    mp, mo, cp, co = mid(3, 0), mid(3, 1), mid(4, 0), mid(4, 1)
    if len(pairs) == 1:
        cell_speed, cell_commits = f"**{speed[0]} x** ({mp} / {mo})", f"**{commits[0]} x** ({cp} / {co})"
    else:  # medians of the repetitions' ratios, their range, then each repetition's ratio in order
        cell_speed = (f"**{round(median(speed), 2)} x**, range {span(speed)} ({', '.join(map(str, speed))}; "
                      f"median orders/s {mp} / {mo})")
        cell_commits = f"**{round(median(commits), 2)} x**, range {span(commits)} (median {cp} / {co})"
    skipped = f"; no ratio: {', '.join(bad)}" if bad else ""
    print(f"| {d} ms | {w} | {cell_speed}{skipped} | {cell_commits} |")
PY
echo
echo "Warm-up of each cell (until the workers' JIT compilers used under 0.1 cores for 5 s), and the JIT's CPU left in its window:"
echo
sed 's/^/- /' "$OUT/b2$SUFFIX-warmup.txt"
} > "$OUT/b2$SUFFIX.md"
cat "$OUT/b2$SUFFIX.md"
