#!/usr/bin/env bash
# B1 on the embedded database: signed callback ingest on H2 files, two Paysync jars side by side, their runs
# alternating, each request a real Pending -> Paid:
#   durable  an H2 file URL with no settings: Paysync opens it with WRITE_DELAY=0 (every commit written to the file
#            before the answer; nothing acknowledged is lost when the process is killed)
#   delay    the same with ;WRITE_DELAY=500, H2's own default, which Paysync overrides (a killed process
#            loses what it acknowledged in the last half second or so)
# wrk (closed loop) at the same concurrency on both, REPS x SECS after a WARM s warm-up each; median req/s, the
# ratio durable / delay, latency, server CPU per request, and the database file's size after the run.
# Usage: bash bench/b1-h2.sh [connections] [seconds]     (B1H2_REPS=5, B1H2_WARM=30, B1H2_SLICE=150000)
# Writes target/bench/b1-h2.md. Needs wrk (Debian: apt-get install wrk); no PostgreSQL.
BENCH_NO_PG=1
source "$(dirname "$0")/common.sh"
CONNS=${1:-16}
SECS=${2:-20}
REPS=${B1H2_REPS:-5}
WARM=${B1H2_WARM:-30}
SLICE=${B1H2_SLICE:-150000}   # orders signed for one wrk run: more than a run can use
ORDERS=$(( (1 + REPS) * SLICE ))
H2_JAR=$(ls target/lib/h2-*.jar)
DIR="$OUT/b1-h2"
RESULT="$OUT/b1-h2.md"
DB_PASSWORD=bench-h2-password
CELLS="durable delay"

url_of() { case "$1" in durable) echo "jdbc:h2:file:$PWD/$DIR/durable/paysync" ;;
  delay) echo "jdbc:h2:file:$PWD/$DIR/delay/paysync;WRITE_DELAY=500" ;; esac; }
port_of() { case "$1" in durable) echo "$BENCH_PORT" ;; delay) echo $((BENCH_PORT + 1)) ;; esac; }

start_cell() { # start_cell NAME LOG: sets PID_<NAME>
  CAMEL_MAIN_PROFILE=prod CAMEL_SERVER_PORT=$(port_of "$1") CAMEL_MANAGEMENT_PORT=$(port_of "$1") \
  PAYSYNC_DB_URL="$(url_of "$1")" PAYSYNC_DB_USERNAME=sa PAYSYNC_DB_PASSWORD=$DB_PASSWORD \
  PAYSYNC_DB_POOL_SIZE=${BENCH_POOL:-8} \
  PAYSYNC_GATEWAY_WEBHOOK_SECRET="$BENCH_SECRET" PAYSYNC_ADMIN_TOKEN=bench-admin-token-0123456789 \
  PAYSYNC_API_TOKEN=bench-shop-token-0123456789 \
  PAYSYNC_THIRD_PARTY_URL=http://127.0.0.1:9/unused PAYSYNC_SYNC_ENABLED=false PAYSYNC_PAYMENT_EXPIRY_ENABLED=false \
  java $CDS_OPTS ${BENCH_JAVA_OPTS:-} -jar target/paysync.jar > "$2" 2>&1 9>&- &
  printf -v "PID_$1" '%s' $!
  for _ in $(seq 1 600); do
    curl -fs -o /dev/null "http://127.0.0.1:$(port_of "$1")/observe/health/ready" && return 0
    sleep 0.1
  done
  echo "$1 did not start, see $2" >&2; return 1
}
stop_cell() { local pid="PID_$1"; kill "${!pid}" 2>/dev/null || true; wait "${!pid}" 2>/dev/null || true; }

h2() { # h2 NAME SQL: a statement on the cell's file while no Paysync has it open
  java -cp "$H2_JAR" org.h2.tools.Shell -url "$(url_of "$1")" -user sa -password "$DB_PASSWORD" -sql "$2"
}

cpu_of() { awk '{print $14 + $15}' "/proc/$1/stat"; }

exec 9> /tmp/paysync-bench.lock; flock 9
trap 'for c in $CELLS; do stop_cell "$c"; done' EXIT
rm -rf "$DIR"; mkdir -p "$DIR"
: > "$RESULT.rows"
# Each file: the schema migrated by Paysync itself, then ORDERS Pending orders B-1 .. B-ORDERS.
for c in $CELLS; do
  start_cell "$c" "$OUT/b1-h2-$c-migrate.log"; stop_cell "$c"
  h2 "$c" "INSERT INTO orders (order_number, amount, currency, payment_status, sync_status, sync_attempts, created_at)
    SELECT 'B-' || X, 10.00, 'EUR', 'Pending', 'Pending', 0, CURRENT_TIMESTAMP FROM SYSTEM_RANGE(1, $ORDERS)"
done
for c in $CELLS; do start_cell "$c" "$OUT/b1-h2-$c.log"; done
grep -q "WRITE_DELAY=500" "$OUT/b1-h2-delay.log" || { echo "the delay cell did not run with a write delay" >&2; exit 1; }
! grep -q "WRITE_DELAY" "$OUT/b1-h2-durable.log" || { echo "the durable cell warned of a write delay" >&2; exit 1; }

wrk_run() { # wrk_run NAME SECONDS OUTFILE: a fresh slice of orders for one run
  python3 bench/sign-callbacks.py "$NEXT" "$SLICE" "$BENCH_SECRET" > "$OUT/callbacks.txt"; NEXT=$((NEXT + SLICE))
  B1_THREADS=2 B1_REQUESTS="$OUT/callbacks.txt" wrk -t2 -c"$CONNS" -d"${2}s" --latency -s bench/callbacks.lua \
    "http://127.0.0.1:$(port_of "$1")" > "$3"
}
# Both cells take the same orders B-n: each has its own file, so a slice is used once per cell. Slice 0 warms up.
for c in $CELLS; do NEXT=1; wrk_run "$c" "$WARM" "$OUT/b1-h2-$c-warmup.txt"; done
for rep in $(seq 1 "$REPS"); do
  for c in $CELLS; do
    NEXT=$((1 + rep * SLICE)); pid="PID_$c"
    cpu0=$(cpu_of "${!pid}")
    wrk_run "$c" "$SECS" "$OUT/b1-h2-$c-$rep.txt"
    cpu=$(( $(cpu_of "${!pid}") - cpu0 ))
    rps=$(awk '/Requests\/sec/ {print $2}' "$OUT/b1-h2-$c-$rep.txt")
    reqs=$(awk '/requests in/ {print $1}' "$OUT/b1-h2-$c-$rep.txt")
    lat=$(grep -E '^latency p50' "$OUT/b1-h2-$c-$rep.txt" | sed 's/latency //')
    err=$(awk '/non-2xx or socket errors/ {print $NF}' "$OUT/b1-h2-$c-$rep.txt")
    ms=$(python3 -c "print(round($cpu * 1000 / $(getconf CLK_TCK) / max($reqs, 1), 3))")
    echo "| $c | $rep | $rps | $err | $lat | $ms |" >> "$RESULT.rows"
    echo "$rps" >> "$OUT/b1-h2-$c-rates.txt.$$"
  done
done
for c in $CELLS; do stop_cell "$c"; done
median() { sort -n "$OUT/b1-h2-$1-rates.txt.$$" | sed -n "$(( (REPS + 1) / 2 ))p"; }
{
  echo "B1 on H2 $(date -u +%FT%TZ), $(nproc) cores, $CONNS connections, $REPS x ${SECS} s after a ${WARM} s warm-up each, pool ${BENCH_POOL:-8}, the two cells' runs alternating"
  echo
  echo "| cell | run | req/s | errors | latency (closed loop) | server CPU ms/req |"
  echo "|---|---|---|---|---|---|"
  cat "$RESULT.rows"
  echo
  for c in $CELLS; do
    paid=$(h2 "$c" "SELECT COUNT(*) FROM orders WHERE payment_status = 'Paid'" | sed -n 2p | tr -d ' ')
    hist=$(h2 "$c" "SELECT COUNT(*) FROM order_transitions WHERE to_status = 'Paid'" | sed -n 2p | tr -d ' ')
    echo "- $c: median $(median "$c") req/s (runs $(tr '\n' ' ' < "$OUT/b1-h2-$c-rates.txt.$$")); $paid orders Paid, $hist Pending -> Paid history rows; database file $(du -m "$DIR/$c/paysync.mv.db" | cut -f1) MB"
  done
  echo
  echo "durable / delay (median req/s): $(python3 -c "print(round(float('$(median durable)') / float('$(median delay)'), 2))")"
} | tee "$RESULT"
rm -f "$OUT"/b1-h2-*-rates.txt.$$
rm -rf "$DIR" # gigabytes of database files, read above
