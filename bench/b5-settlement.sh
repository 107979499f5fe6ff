#!/usr/bin/env bash
# B5: a settlement file of ROWS successes (default 1,000,000) applied by the jar (prod profile) in a 256 MB heap on
# PostgreSQL, beside B1's Paysync callback cell on the same server in the same run: settle, callbacks, settle, so a
# slow stretch of this shared machine falls on both. Target: settlement rows/s >= callback req/s.
# Rows/s of a run: ROWS over the time from the file's rename into the inbox to its report in .done/ (hashing the
# file, reading, applying, filing away). The JVM exits on an OutOfMemoryError, so a run that holds too much of the
# file fails here rather than crawling; its largest heap after a collection comes from its GC log.
# Usage: bash bench/b5-settlement.sh     (B5_ROWS, B5_REPS=2 settlement runs; B5_B1_REPS=3 x B5_B1_SECS=20 s of
# callbacks after a 30 s warm-up, 16 connections). Writes target/bench/b5.md. Needs wrk (Debian: apt-get install wrk).
source "$(dirname "$0")/common.sh"
ROWS=${B5_ROWS:-1000000}
REPS=${B5_REPS:-2}
HEAP=${B5_HEAP:-256m}
INBOX="$PWD/$OUT/b5-inbox"
CSV="$OUT/b5-settlement.csv"
RESULT="$OUT/b5.md"
RATES="$OUT/b5-rates.txt"
: > "$RATES"
: > "$RESULT.rows"

awk -v n="$ROWS" 'BEGIN {
  print "order_number,transaction_id,amount,currency,status,settled_at"
  for (i = 1; i <= n; i++) printf "S-%d,gw_s_%d,10.00,EUR,succeeded,2026-12-01T00:00:00Z\n", i, i
}' > "$CSV"

q() { psql -Atq -d "$BENCH_DB" -c "$1"; }

settle() { # settle REP: a fresh database with ROWS Pending orders, the file dropped, timed until its report
  local rep=$1 log="$OUT/b5-settle-$1.log" gclog="$OUT/b5-gc-$1.log"
  fresh_db
  start_paysync "$OUT/b5-migrate.log"; wait_ready > /dev/null; stop_paysync
  psql -q -d "$BENCH_DB" -c "INSERT INTO orders (order_number, amount, currency, payment_status, sync_status,
      sync_attempts, created_at) SELECT 'S-' || i, 10.00, 'EUR', 'Pending', 'Pending', 0, now()
      FROM generate_series(1, $ROWS) i" -c "VACUUM ANALYZE" -c "CHECKPOINT"
  rm -rf "$INBOX"; mkdir -p "$INBOX"
  export PAYSYNC_SETTLEMENT_INBOX="$INBOX" PAYSYNC_SETTLEMENT_POLL_MS=100 PAYSYNC_SETTLEMENT_STABLE_MS=100
  BENCH_JAVA_OPTS="-Xmx$HEAP -XX:+ExitOnOutOfMemoryError -Xlog:gc:file=$gclog" start_paysync "$log"
  unset PAYSYNC_SETTLEMENT_INBOX PAYSYNC_SETTLEMENT_POLL_MS PAYSYNC_SETTLEMENT_STABLE_MS
  wait_ready > /dev/null
  cp "$CSV" "$INBOX/.settlement.csv.part"
  local cpu0 t0 t1 cpu1
  cpu0=$(awk '{print $14 + $15}' "/proc/$PAYSYNC_PID/stat")
  t0=$(date +%s%N)
  mv "$INBOX/.settlement.csv.part" "$INBOX/settlement.csv"
  until [ -f "$INBOX/.done/settlement.csv.report.json" ]; do
    kill -0 "$PAYSYNC_PID" 2>/dev/null || { echo "paysync exited during settlement run $rep (see $log)" >&2; exit 1; }
    sleep 0.05
  done
  t1=$(date +%s%N)
  cpu1=$(awk '{print $14 + $15}' "/proc/$PAYSYNC_PID/stat")
  local hwm paid rate secs heap cpu
  hwm=$(awk '/VmHWM/ {printf "%.0f", $2 / 1024}' "/proc/$PAYSYNC_PID/status")
  stop_paysync
  paid=$(q "SELECT count(*) FROM orders WHERE payment_status = 'Paid'")
  [ "$paid" = "$ROWS" ] || { echo "settlement run $rep paid $paid of $ROWS orders" >&2; exit 1; }
  secs=$(python3 -c "print(f'{($t1 - $t0) / 1e9:.1f}')")
  rate=$(python3 -c "print(round($ROWS / (($t1 - $t0) / 1e9)))")
  cpu=$(python3 -c "print(f'{($cpu1 - $cpu0) / $(getconf CLK_TCK) * 1e6 / $ROWS:.0f}')")
  # The largest heap left after a collection: "Pause Young ... 180M->42M(256M)" gives 42.
  heap=$(grep -oE '[0-9]+M->[0-9]+M' "$gclog" | sed 's/.*->//; s/M//' | sort -n | tail -1)
  echo "$rate" >> "$RATES"
  echo "| settlement | $rep | $rate rows/s | $secs s | $paid | ${heap:-?} MB | $hwm MB | $cpu us |" >> "$RESULT.rows"
  echo "settlement run $rep: $rate rows/s ($secs s), heap after GC at most ${heap:-?} MB of $HEAP, RSS peak $hwm MB"
}

# bench/b6-adoption.sh runs a settlement file beside its cutover: with B5_AS_LIBRARY=1 this file only defines settle.
[ "${B5_AS_LIBRARY:-}" = 1 ] && return 0
: > "$RESULT.rows"
settle 1
B1_OUT=$(B1_ONLY=paysync B1_REPS=${B5_B1_REPS:-3} B1_WARM=30 bash bench/b1-callbacks.sh 16 "${B5_B1_SECS:-20}" | tee /dev/stderr)
CALLBACKS=$(echo "$B1_OUT" | sed -n 's/.*paysync peak (median of \([^)]*\)): \([0-9.]*\) req\/s$/\2/p')
CALLBACK_RUNS=$(echo "$B1_OUT" | sed -n 's/.*paysync peak (median of \([^)]*\)).*/\1/p')
for rep in $(seq 2 "$REPS"); do settle "$rep"; done
SLOWEST=$(sort -n "$RATES" | head -1)
{
  echo "B5 $(date -u +%FT%TZ), $(nproc) cores, commit $(git rev-parse --short HEAD), $ROWS rows, -Xmx$HEAP, PostgreSQL $(psql -Atq -d postgres -c 'SHOW server_version')"
  echo
  echo "| cell | run | rate | time | orders paid | heap after GC, max | RSS peak | server CPU per row |"
  echo "|---|---|---|---|---|---|---|---|"
  cat "$RESULT.rows"
  echo "| callbacks (B1 paysync, 16 connections) | median of $CALLBACK_RUNS | $CALLBACKS req/s | | | | | |"
  echo
  echo "Slowest settlement run / callback peak: $(python3 -c "print(f'{$SLOWEST / $CALLBACKS:.2f}')") x (target >= 1.0)"
} > "$RESULT"
cat "$RESULT"
