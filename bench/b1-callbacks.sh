#!/usr/bin/env bash
# B1: signed callback ingest on PostgreSQL, each request a real Pending -> Paid, three cells side by side:
#   paysync  the jar (prod profile), POST /api/payments/callback
#   vertx    bench/ingest's plain Vert.x handler: same checks, same statements in one transaction, same pool size
#   pgbench  the same guarded UPDATE and history row in one transaction (bench/pgbench-callback.sql)
# Peak: wrk (closed loop) and pgbench at the same concurrency, REPS x SECS after a WARM s warm-up, median and range.
# Latency: bench/ingest's fixed-rate client (HdrHistogram, open loop) at 50 % and 80 % of Paysync's peak against both
# HTTP cells, FIXED_REPS runs each (alternating), a CHECKPOINT before each; the ratio compares the median p99s, since
# one stall of this shared machine decides a single run's p99 (docs/benchmarks.md, "Reading it"). Each fixed-rate run
# also says where its tail fell and what ran then (bench/tail-sampler.py, bench/tail-report.py, safepoint logs).
# Per cell: commits, statements and WAL bytes per request, CPU per request (server JVM, whole machine).
# The two HTTP cells run side by side: both servers up on one database, their warm-ups, repetitions and fixed-rate
# runs alternating (paysync, vertx, paysync, ...), so a slow minute of this shared machine falls on both, not on one.
# Usage: bash bench/b1-callbacks.sh [connections] [seconds]     (B1_REPS=5, B1_FIXED_REPS=3; B1_ONLY=paysync for
# Paysync's peak runs alone)
# What-if: B1_BURN_US=N adds a third HTTP cell, "burn": the same handler spending N us more CPU per callback on its
# worker thread, in every round beside the other two. With N = Paysync's extra server CPU per callback (the
# side-by-side profile, bench/profile-b1-compare.sh), it tells whether that CPU alone gives Paysync's tail at 80 %.
# Tracing: B1_TRACING=1 adds two more Paysync cells with tracing on, "traced" (sampling ratio 1.0) and "sampled" (0.1),
# exporting over OTLP/HTTP to bench/ingest's OtlpSink (a real endpoint decoding every export, on this machine, so its
# CPU counts in the machine's column); "paysync" is then the same jar with tracing off. B1_BEFORE_JAR=<jar> adds a
# cell "before": another build of Paysync (say, the one before a change) beside this one, on the same database, run
# in the checkout it was built in (its settings file and routes); the schema is this build's, which may be newer.
# Writes target/bench/b1.md.
# Needs wrk and pgbench (Debian: apt-get install wrk postgresql-client).
source "$(dirname "$0")/common.sh"
CONNS=${1:-16}
SECS=${2:-30}
REPS=${B1_REPS:-5}
FIXED_REPS=${B1_FIXED_REPS:-3}
WARM=${B1_WARM:-60}        # seconds of wrk before the measured runs, per cell (JIT: 30 s leaves Paysync's first
                           # run still compiling)
# Seconds each fixed-rate run sends before it records: the client is a fresh JVM, and with 5 s its own warm-up
# (and the switch from wrk) put every request over 20 ms into the first 3 s (bench/profile-b1-latency.sh).
FIXED_WARM=${B1_FIXED_WARM:-15}
SLICE=${B1_SLICE:-200000}  # orders signed for one wrk run: more than a run can use
BURN_US=${B1_BURN_US:-0}
TRACING=${B1_TRACING:-0}
BEFORE_JAR=${B1_BEFORE_JAR:-}
HTTP_CELLS=2; [ "$BURN_US" -gt 0 ] && HTTP_CELLS=$((HTTP_CELLS + 1))
[ "$TRACING" = 1 ] && HTTP_CELLS=$((HTTP_CELLS + 2))
[ -n "$BEFORE_JAR" ] && HTTP_CELLS=$((HTTP_CELLS + 1))
FIXED_MAX_RATE=${B1_FIXED_MAX_RATE:-4000} # the most a fixed-rate run may offer (80 % of a 5,000 req/s peak); it
                                          # sizes the orders seeded: raise it where the peak is higher, or the 80 %
                                          # runs are refused
# The HTTP cells' orders: per cell a warm-up and REPS wrk runs of a slice each, then FIXED_REPS fixed-rate runs at
# 80 % and at 50 % (5/8 of the 80 % rate) of the peak
ORDERS=${B1_ORDERS:-$(( HTTP_CELLS * ((1 + REPS) * SLICE + FIXED_REPS * (SECS + FIXED_WARM) * FIXED_MAX_RATE * 13 / 8) ))}
# pgbench's cell runs (WARM + (REPS + 1) x SECS) s: 2.4 M orders last that long at up to 10,000 tps
PGBENCH_ORDERS=${B1_PGBENCH_ORDERS:-2400000}
BASE_PORT=$((BENCH_PORT + 2))
BURN_PORT=$((BENCH_PORT + 3))
TRACED_PORT=$((BENCH_PORT + 4))
SAMPLED_PORT=$((BENCH_PORT + 5))
SINK_PORT=$((BENCH_PORT + 6))
BEFORE_PORT=$((BENCH_PORT + 7))
INGEST=bench/ingest/target
mvn -q -B -ntp -f bench/ingest/pom.xml package # every time, as build_bench_tools: never a stale peer or client
CP="$INGEST/classes:$INGEST/lib/*"
RESULT="$OUT/b1.md"
FIXED="$OUT/b1-fixed.md"
: > "$FIXED"
TAILS="$OUT/b1-tails.md"
: > "$TAILS"
# Each server's safepoint log (GC pauses among them), wall-clock stamped, for bench/tail-report.py
safepoints() { echo "-Xlog:safepoint:file=$PWD/$OUT/b1-$1-safepoint.log:time"; }

seed() { # seed N: a fresh database with N Pending orders B-1..B-N (the schema migrated by Paysync itself)
  fresh_db
  start_paysync "$OUT/b1-migrate.log"; wait_ready > /dev/null; stop_paysync
  psql -q -d "$BENCH_DB" -c "INSERT INTO orders (order_number, amount, currency, payment_status, sync_status,
      sync_attempts, created_at) SELECT 'B-' || i, 10.00, 'EUR', 'Pending', 'Pending', 0, now()
      FROM generate_series(1, $1) i" -c "CREATE SEQUENCE bench_order_ids" \
      -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" -c "VACUUM ANALYZE" -c "CHECKPOINT"
  NEXT=1
}

sign() { # sign FIRST COUNT > file: one signed request per line for wrk, timestamped now
  python3 bench/sign-callbacks.py "$1" "$2" "$BENCH_SECRET"
}

q() { psql -Atq -d "$BENCH_DB" -c "$1"; }
cpu_of() { [ -n "${1:-}" ] && awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; } # ticks
busy() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8}' /proc/stat; } # whole machine: server, PostgreSQL, load
stats_begin() {
  q "SELECT pg_stat_statements_reset()" > /dev/null
  S_COMMITS=$(q "SELECT xact_commit FROM pg_stat_database WHERE datname = '$BENCH_DB'")
  S_WAL=$(q "SELECT pg_current_wal_lsn() - '0/0'::pg_lsn")
  S_PAID=$(q "SELECT count(*) FROM orders WHERE payment_status = 'Paid'")
  S_CPU=$(cpu_of "${1:-}"); S_BUSY=$(busy)
}
stats_end() { # stats_end PID CLIENT_CPU_SECONDS; prints: paid, then per request: commits, statements, WAL bytes,
  # CPU ms of the server JVM, of the load client, of the rest (PostgreSQL, the kernel, anything else), of the machine
  local paid commits wal stmts cpu pg hz
  hz=$(getconf CLK_TCK)
  paid=$(( $(q "SELECT count(*) FROM orders WHERE payment_status = 'Paid'") - S_PAID ))
  commits=$(( $(q "SELECT xact_commit FROM pg_stat_database WHERE datname = '$BENCH_DB'") - S_COMMITS ))
  wal=$(( $(q "SELECT pg_current_wal_lsn() - '0/0'::pg_lsn" | cut -d. -f1) - ${S_WAL%.*} ))
  stmts=$(q "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
             WHERE d.datname = '$BENCH_DB' AND query NOT ILIKE '%pg_stat%' AND query NOT ILIKE '%pg_current_wal%'")
  cpu=$(( $(cpu_of "${1:-}") - S_CPU )); pg=$(( $(busy) - S_BUSY ))
  python3 -c "p=max($paid,1); s=$cpu*1000/$hz/p; c=$2*1000/p; m=$pg*1000/$hz/p; \
    print($paid, round($commits/p, 2), round($stmts/p, 2), round($wal/p), round(s, 3), round(c, 3), round(m-s-c, 3), round(m, 3))"
}

# warm NAME PORT: WARM s of wrk on a fresh slice of orders, not recorded
warm() {
  sign "$NEXT" "$SLICE" > "$OUT/callbacks.txt"; NEXT=$((NEXT + SLICE))
  B1_THREADS=2 B1_REQUESTS="$OUT/callbacks.txt" wrk -t2 -c"$CONNS" -d"${WARM}s" -s bench/callbacks.lua \
    "http://127.0.0.1:$2" > "$OUT/b1-$1-warmup.txt"
}

# run NAME PORT PID REP: one recorded wrk run on a fresh slice of orders; appends its row, then its req/s to RATES_NAME
run() {
  local name=$1 port=$2 pid=$3 rep=$4
  sign "$NEXT" "$SLICE" > "$OUT/callbacks.txt"; NEXT=$((NEXT + SLICE))
  q "CHECKPOINT" > /dev/null
  stats_begin "$pid"
  local sink_before; sink_before=$(sink_counts)
  B1_THREADS=2 B1_REQUESTS="$OUT/callbacks.txt" /usr/bin/time -f "%U %S" -o "$OUT/b1-client-cpu.txt" \
    wrk -t2 -c"$CONNS" -d"${SECS}s" --latency -s bench/callbacks.lua "http://127.0.0.1:$port" > "$OUT/b1-$name-$rep.txt"
  read -r paid cpr spr wpr cpu client rest machine <<< "$(stats_end "$pid" "$(awk '{print $1 + $2}' "$OUT/b1-client-cpu.txt")")"
  local rps lat err
  rps=$(awk '/Requests\/sec/ {print $2}' "$OUT/b1-$name-$rep.txt")
  lat=$(grep -E '^latency p50' "$OUT/b1-$name-$rep.txt" | sed 's/latency //')
  err=$(awk '/non-2xx or socket errors/ {print $NF}' "$OUT/b1-$name-$rep.txt")
  echo "| $name | $rep | $rps | $paid | $err | $lat | $cpr | $spr | $wpr | $cpu | $client | $rest | $machine |" >> "$RESULT.peak"
  echo "$rps" >> "$OUT/b1-$name-rates.txt"
  if [ "$TRACING" = 1 ]; then # what reached the collector for this run's callbacks, once its exporter had sent them
    sleep 6 # the batch span processor's 5 s schedule
    python3 -c "b = '$sink_before'.split(); a = '$(sink_counts)'.split(); p = max($paid, 1)
print('| $name | $rep | %.2f | %.0f | %d | %d |' % ((int(a[1]) - int(b[1])) / p, (int(a[2]) - int(b[2])) / p, int(a[0]) - int(b[0]), int(a[3]) - int(b[3])))" >> "$RESULT.sink"
  fi
}

median() { sort -n "$OUT/b1-$1-rates.txt" | sed -n "$(( (REPS + 1) / 2 ))p"; }

consistent() { # every Paid order has exactly its history row and (HTTP cells) its callbacks row; appends the line
  local paid hist audit
  paid=$(q "SELECT count(*) FROM orders WHERE payment_status = 'Paid'")
  hist=$(q "SELECT count(*) FROM order_transitions WHERE to_status = 'Paid'")
  audit=$(q "SELECT count(*) FROM callbacks WHERE outcome = 'paid'")
  echo "$1: $paid orders Paid, $hist Pending -> Paid history rows, $audit callbacks logged as paid" >> "$RESULT.check"
}

fixed() { # fixed NAME PORT RATE PID CELL
  if [ "$3" -gt "$FIXED_MAX_RATE" ] || [ $(( NEXT + $3 * (SECS + FIXED_WARM) )) -gt "$ORDERS" ]; then
    echo "fixed-rate run $1 at $3 req/s would need orders past B-$ORDERS: raise B1_FIXED_MAX_RATE" >&2; exit 1
  fi
  q "CHECKPOINT" > /dev/null # as before each wrk run: no checkpoint left over from the last run's writes
  rm -f "$OUT/$1.worst" # an earlier run's, which a client that fails here would leave for the report to read
  python3 bench/tail-sampler.py "$OUT/b1-$1.samples" "$4" & local sampler=$!
  /usr/bin/time -f "%U %S" -o "$OUT/b1-fixed-cpu.txt" \
    java -cp "$CP" io.paysync.bench.LoadClient "$1" "http://127.0.0.1:$2" "$3" "$SECS" "$FIXED_WARM" "$CONNS" "$NEXT" \
    "$BENCH_SECRET" "$FIXED" > "$OUT/b1-$1.out" 2>&1 || echo "fixed-rate run $1 had errors (see $OUT/b1-$1.out)"
  kill "$sampler" 2> /dev/null || true; wait "$sampler" || true # a sampler that died early must not end B1
  python3 bench/tail-report.py "$1" "$OUT/$1.worst" "$OUT/b1-$1.samples" "$OUT/b1-$5-safepoint.log" >> "$TAILS" ||
    echo "| $1 | no report (see $OUT/b1-$1.out) | | | |" >> "$TAILS" # a client that failed wrote no slots
  echo "fixed-rate client $1: $(awk '{print $1 + $2}' "$OUT/b1-fixed-cpu.txt") s of CPU for $(( $3 * (SECS + FIXED_WARM) )) requests (signing before the clock included)" >> "$RESULT.check"
  NEXT=$((NEXT + $3 * (SECS + FIXED_WARM) + 1))
}

: > "$RESULT.peak"
: > "$RESULT.check"
: > "$RESULT.sink"
exec 9> /tmp/paysync-bench.lock; flock 9
# Whatever ends the script (a refused fixed-rate run, a failed step) stops the servers it started.
trap 'stop_paysync; kill ${BASE_PID:-} ${BURN_PID:-} ${TRACED_PID:-} ${SAMPLED_PID:-} ${SINK_PID:-} ${BEFORE_PID:-} 2> /dev/null || true' EXIT

# start_more NAME PORT [VAR=value...]: one more Paysync cell (common.sh's start_paysync on another port, with the
# settings given) beside the first; prints its pid once it is ready. BENCH_DIR=<dir> among them runs it in that
# directory, with the settings file and routes there: another build's, which may not know this one's settings.
start_more() {
  local name=$1 port=$2
  shift 2
  env "$@" BENCH_PORT="$port" BENCH_JAVA_OPTS="${BENCH_JAVA_OPTS:-} $(safepoints "$name")" \
    bash -c 'source bench/common.sh; cd "${BENCH_DIR:-.}"; start_paysync "$0"; wait_ready > /dev/null && echo "$PAYSYNC_PID"' \
    "$PWD/$OUT/b1-$name.log" 9>&-
}

# 1. Paysync and the plain Vert.x handler, side by side on one database, their runs alternating
seed "$ORDERS"
rm -f "$OUT"/b1-*-rates.txt
BENCH_JAVA_OPTS="${BENCH_JAVA_OPTS:-} $(safepoints paysync)" start_paysync "$OUT/b1-paysync.log"; wait_ready > /dev/null
if [ "$TRACING" = 1 ]; then
  java -cp "$CP" io.paysync.bench.OtlpSink "$SINK_PORT" > "$OUT/b1-sink.log" 2>&1 9>&- & SINK_PID=$!
  until grep -qs started "$OUT/b1-sink.log"; do kill -0 "$SINK_PID" || exit 1; sleep 0.1; done
  TRACED_PID=$(start_more traced "$TRACED_PORT" PAYSYNC_TRACING_ENABLED=true \
    PAYSYNC_TRACING_ENDPOINT="http://127.0.0.1:$SINK_PORT" PAYSYNC_TRACING_SAMPLING_RATIO=1.0)
  SAMPLED_PID=$(start_more sampled "$SAMPLED_PORT" PAYSYNC_TRACING_ENABLED=true \
    PAYSYNC_TRACING_ENDPOINT="http://127.0.0.1:$SINK_PORT" PAYSYNC_TRACING_SAMPLING_RATIO=0.1)
fi
if [ -n "$BEFORE_JAR" ]; then
  # its own copy of the jar and no class data sharing archive: the archive belongs to this build's jar
  BEFORE_PID=$(start_more before "$BEFORE_PORT" BENCH_CDS=off BENCH_JAR="$(realpath "$BEFORE_JAR")" \
    BENCH_DIR="$(dirname "$(realpath "$BEFORE_JAR")")/..")
fi
if [ "${B1_ONLY:-}" != paysync ]; then
  start_vertx_baseline "$BASE_PORT" "$OUT/b1-vertx.log" "$(safepoints vertx)"; BASE_PID=$BASE_STARTED_PID
  if [ "$BURN_US" -gt 0 ]; then
    BASE_BURN_US=$BURN_US start_vertx_baseline "$BURN_PORT" "$OUT/b1-burn.log" "$(safepoints burn)"
    BURN_PID=$BASE_STARTED_PID
  fi
fi
cells() { # the order each round runs them in
  echo paysync
  [ "${B1_ONLY:-}" = paysync ] && return
  echo vertx
  [ "$BURN_US" -gt 0 ] && echo burn
  [ "$TRACING" = 1 ] && echo traced && echo sampled
  [ -n "$BEFORE_JAR" ] && echo before
  true
}
port_of() {
  case "$1" in paysync) echo "$BENCH_PORT" ;; vertx) echo "$BASE_PORT" ;; burn) echo "$BURN_PORT" ;;
    traced) echo "$TRACED_PORT" ;; sampled) echo "$SAMPLED_PORT" ;; before) echo "$BEFORE_PORT" ;; esac
}
pid_of() {
  case "$1" in paysync) echo "$PAYSYNC_PID" ;; vertx) echo "$BASE_PID" ;; burn) echo "$BURN_PID" ;;
    traced) echo "$TRACED_PID" ;; sampled) echo "$SAMPLED_PID" ;; before) echo "$BEFORE_PID" ;; esac
}
sink_counts() { # requests spans bytes errors, as the sink has them now
  if [ "$TRACING" = 1 ]; then curl -fs "http://127.0.0.1:$SINK_PORT/counts"; else echo "0 0 0 0"; fi
}
for c in $(cells); do warm "$c" "$(port_of "$c")"; done
for rep in $(seq 1 "$REPS"); do
  for c in $(cells); do run "$c" "$(port_of "$c")" "$(pid_of "$c")" "$rep"; done
done
PAYSYNC_PEAK=$(median paysync)
echo "paysync peak (median of $(tr '\n' ' ' < "$OUT/b1-paysync-rates.txt")): $PAYSYNC_PEAK req/s"
if [ "${B1_ONLY:-}" = paysync ]; then stop_paysync; cat "$RESULT.peak"; exit 0; fi # a quick look at Paysync alone
VERTX_PEAK=$(median vertx)
echo "vertx peak (median of $(tr '\n' ' ' < "$OUT/b1-vertx-rates.txt")): $VERTX_PEAK req/s"
R50=$(python3 -c "print(int(float('$PAYSYNC_PEAK') * 0.5))"); R80=$(python3 -c "print(int(float('$PAYSYNC_PEAK') * 0.8))")
for pct in 50 80; do
  rate=$R50; [ "$pct" = 80 ] && rate=$R80
  for rep in $(seq 1 "$FIXED_REPS"); do
    for c in $(cells); do fixed "$c-at-${pct}pct-$rep" "$(port_of "$c")" "$rate" "$(pid_of "$c")" "$c"; done
  done
done
consistent "$(cells | paste -sd, | sed 's/,/ and /g') (one database)"
stop_paysync
kill "$BASE_PID" ${BURN_PID:-} ${TRACED_PID:-} ${SAMPLED_PID:-} ${SINK_PID:-} ${BEFORE_PID:-}
wait "$BASE_PID" ${BURN_PID:-} ${SINK_PID:-} 2>/dev/null || true
for p in ${TRACED_PID:-} ${SAMPLED_PID:-} ${BEFORE_PID:-}; do # started by start_more: not this shell's children
  while kill -0 "$p" 2> /dev/null; do sleep 0.2; done
done

# 3. pgbench, same UPDATE and history row, same concurrency
seed "$PGBENCH_ORDERS"
pgbench -n -c"$CONNS" -j2 -T"$WARM" -f bench/pgbench-callback.sql "$BENCH_DB" > /dev/null 2>&1 # warm-up
tps_all=()
for rep in $(seq 1 "$REPS"); do
  q "CHECKPOINT" > /dev/null
  stats_begin ""
  /usr/bin/time -f "%U %S" -o "$OUT/b1-client-cpu.txt" \
    pgbench -n -c"$CONNS" -j2 -T"$SECS" -f bench/pgbench-callback.sql "$BENCH_DB" > "$OUT/b1-pgbench-$rep.txt" 2>&1
  read -r paid cpr spr wpr cpu client rest machine <<< "$(stats_end "" "$(awk '{print $1 + $2}' "$OUT/b1-client-cpu.txt")")"
  tps=$(awk '/^tps/ {print $3}' "$OUT/b1-pgbench-$rep.txt")
  lat=$(awk '/latency average/ {print "average " $4 " ms"}' "$OUT/b1-pgbench-$rep.txt")
  echo "| pgbench | $rep | $tps | $paid | 0 | $lat | $cpr | $spr | $wpr | - | $client | $rest | $machine |" >> "$RESULT.peak"
  tps_all+=("$tps")
done
PGBENCH_TPS=$(printf '%s\n' "${tps_all[@]}" | sort -n | sed -n "$(( (REPS + 1) / 2 ))p")
pgbench -n -c"$CONNS" -j2 -T"$SECS" -R"$R80" -f bench/pgbench-callback.sql "$BENCH_DB" \
  > "$OUT/b1-pgbench-at-80pct.txt" 2>&1 || true

ratio() { python3 -c "print(round(float('$1') / float('$2'), 2))"; }
p99s() { awk -F'|' -v l="$1" '$2 ~ " "l"-[0-9]+ " {gsub(/ /, "", $10); print $10}' "$FIXED" | sort -n | tr '\n' ' '; }
p99() { p99s "$1" | tr ' ' '\n' | sed -n "$(( (FIXED_REPS + 1) / 2 ))p"; } # the median of FIXED_REPS runs
{
  echo "B1 $(date -u +%FT%TZ), $(nproc) cores, $CONNS connections, $REPS x ${SECS} s after a ${WARM} s warm-up, pool ${BENCH_POOL:-8}"
  echo
  echo "| cell | run | req/s or tps | orders paid | errors | latency (closed loop) | commits/req | statements/req | WAL bytes/req | CPU ms/req: server | load client | PostgreSQL and rest | machine |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  cat "$RESULT.peak"
  echo
  echo "Fixed rate (open loop, latency from when each request was due; ${FIXED_WARM} s unrecorded warm-up, then ${SECS} s;"
  echo "$FIXED_REPS runs per cell and rate, alternating):"
  echo
  echo "| cell | offered req/s | recorded req/s | recorded | statuses | errors | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  cat "$FIXED"
  echo
  echo "Where each fixed-rate run's tail fell (bench/tail-report.py): the 100 ms slots whose slowest request took over"
  echo "50 ms, and the longest stretch of them; what ran over the whole recording, and in the 1.5 s around that"
  echo "stretch's start: CPU in cores of the machine / the server / PostgreSQL's backends / its autovacuum workers /"
  echo "its checkpointer (sampled every 100 ms from /proc), and the ms the server's JVM stood at safepoints (GC included):"
  echo
  echo "| run | slow slots | longest stretch | whole recording | around the stretch's start |"
  echo "|---|---|---|---|---|"
  cat "$TAILS"
  echo
  echo "pgbench at the same 80 % rate (-R $R80, schedule lag included): $(grep -E 'latency (average|stddev)' "$OUT/b1-pgbench-at-80pct.txt" | tr -s ' ' | tr '\n' ';')"
  echo
  echo "Consistency after the HTTP cells (the three numbers of that line must be equal), and the fixed-rate client's CPU:"
  echo
  sed 's/^/- /' "$RESULT.check"
  echo
  echo "Peaks (medians): paysync $PAYSYNC_PEAK req/s, vertx $VERTX_PEAK req/s, pgbench $PGBENCH_TPS tps"
  echo "paysync / pgbench: $(ratio "$PAYSYNC_PEAK" "$PGBENCH_TPS") (target >= 0.80)"
  echo "paysync / vertx: $(ratio "$PAYSYNC_PEAK" "$VERTX_PEAK") (target >= 0.85)"
  for pct in 50 80; do
    echo "p99 at $pct % (ms, each run): paysync $(p99s "paysync-at-${pct}pct"); vertx $(p99s "vertx-at-${pct}pct")"
  done
  # A run whose server (or the shared machine) could not keep up records fewer requests per second than were offered:
  # its latencies are then queueing time, not service time, and its p99 says so rather than how fast a request is.
  echo "fixed-rate runs that fell behind (recorded < 98 % of the offered rate): $(awk -F'|' '$3 + 0 > 0 && $4 < 0.98 * $3 {gsub(/ /, "", $2); printf "%s ", $2}' "$FIXED")"
  echo "p99 paysync / vertx, medians of $FIXED_REPS runs: at 50 %: $(ratio "$(p99 paysync-at-50pct)" "$(p99 vertx-at-50pct)"), at 80 %: $(ratio "$(p99 paysync-at-80pct)" "$(p99 vertx-at-80pct)") (target <= 1.2)"
  if [ "$TRACING" = 1 ]; then
    echo
    echo "Tracing: peaks (medians) paysync (off) $PAYSYNC_PEAK, traced (1.0) $(median traced), sampled (0.1) $(median sampled) req/s;"
    echo "traced / paysync: $(ratio "$(median traced)" "$PAYSYNC_PEAK"), sampled / paysync: $(ratio "$(median sampled)" "$PAYSYNC_PEAK")"
    for pct in 50 80; do
      echo "p99 at $pct % (ms, each run): traced $(p99s "traced-at-${pct}pct"); sampled $(p99s "sampled-at-${pct}pct")"
    done
    echo "p99 traced / paysync, medians: at 50 %: $(ratio "$(p99 traced-at-50pct)" "$(p99 paysync-at-50pct)"), at 80 %:" \
      "$(ratio "$(p99 traced-at-80pct)" "$(p99 paysync-at-80pct)"); sampled / paysync: at 50 %:" \
      "$(ratio "$(p99 sampled-at-50pct)" "$(p99 paysync-at-50pct)"), at 80 %: $(ratio "$(p99 sampled-at-80pct)" "$(p99 paysync-at-80pct)")"
    echo
    echo "What reached the collector per peak run (bench/ingest OtlpSink; spans and bytes per paid callback, exports, refused):"
    echo
    echo "| cell | run | spans/callback | bytes/callback | exports | refused |"
    echo "|---|---|---|---|---|---|"
    cat "$RESULT.sink"
  fi
  if [ -n "$BEFORE_JAR" ]; then
    echo "before ($BEFORE_JAR): peak $(median before) req/s; paysync / before: $(ratio "$PAYSYNC_PEAK" "$(median before)");" \
      "p99 paysync / before, medians: at 50 %: $(ratio "$(p99 paysync-at-50pct)" "$(p99 before-at-50pct)")," \
      "at 80 %: $(ratio "$(p99 paysync-at-80pct)" "$(p99 before-at-80pct)")"
  fi
  if [ "$BURN_US" -gt 0 ]; then
    echo "what-if, the handler with $BURN_US us more CPU per callback (burn): peak $(median burn) req/s;" \
      "p99 at 50 %: $(p99s burn-at-50pct); at 80 %: $(p99s burn-at-80pct)"
    echo "p99 burn / vertx, medians: at 50 %: $(ratio "$(p99 burn-at-50pct)" "$(p99 vertx-at-50pct)")," \
      "at 80 %: $(ratio "$(p99 burn-at-80pct)" "$(p99 vertx-at-80pct)"); paysync / burn: at 50 %:" \
      "$(ratio "$(p99 paysync-at-50pct)" "$(p99 burn-at-50pct)"), at 80 %: $(ratio "$(p99 paysync-at-80pct)" "$(p99 burn-at-80pct)")"
  fi
} | tee "$RESULT"
