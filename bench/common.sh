# Shared by the bench scripts: a PostgreSQL database of its own and a prod-profile Paysync on it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PGHOST=${PGHOST:-127.0.0.1} PGUSER=${PGUSER:-postgres}
BENCH_DB=${BENCH_DB:-paysync_bench}
BENCH_PORT=${BENCH_PORT:-18090}
BENCH_SECRET="whsec_$(printf 'paysync-bench-secret-0123456789ab' | base64)"
OUT=target/bench
mkdir -p "$OUT"

# The statement counts need pg_stat_statements loaded at server start; say how, rather than fail later. A benchmark
# that runs no PostgreSQL (bench/b1-h2.sh) sets BENCH_NO_PG=1 before sourcing this, one that counts no statements
# (bench/b1-adapters.sh) BENCH_NO_STATEMENTS=1.
if [ "${BENCH_NO_PG:-}" != 1 ] && [ "${BENCH_NO_STATEMENTS:-}" != 1 ] && ! psql -Atq -d postgres -c "SHOW shared_preload_libraries" | grep -q pg_stat_statements; then
  echo "PostgreSQL does not preload pg_stat_statements; the benchmarks count statements with it. Run:" >&2
  echo "  psql -d postgres -c \"ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'\" &&" \
    "pg_ctlcluster --skip-systemctl-redirect \$(ls /etc/postgresql) main restart" >&2
  exit 1
fi

fresh_db() {
  psql -q -d postgres -c "DROP DATABASE IF EXISTS $BENCH_DB WITH (FORCE)" -c "CREATE DATABASE $BENCH_DB"
}

# The class data sharing archive the build writes next to the jar (docs/startup.md), used as the README's run
# command uses it. BENCH_CDS=off starts without one (to compare), BENCH_CDS=<file> with another archive.
BENCH_CDS=${BENCH_CDS:-target/paysync.jsa}
if [ ! -f target/paysync.jar ] || { [ "$BENCH_CDS" = target/paysync.jsa ] && [ ! -f "$BENCH_CDS" ]; }; then
  mvn -q -B package -DskipTests
fi
CDS_OPTS=""
if [ "$BENCH_CDS" != off ]; then
  [ -f "$BENCH_CDS" ] || { echo "no archive $BENCH_CDS (mvn package writes target/paysync.jsa)" >&2; exit 1; }
  CDS_OPTS="-XX:SharedArchiveFile=$BENCH_CDS"
fi

# check_cds <log>: fails when the JVM refused the archive (stale: the jar or a lib changed since it was written; or
# another JVM), since the figures would then be those of a start without it. JDK 25's AOT cache (-XX:AOTCache) says
# "Unable to use AOT cache" or, with -XX:AOTMode=on, refuses to start.
check_cds() {
  if grep -qE "Unable to use (shared archive|AOT cache)" "$1"; then
    echo "the JVM refused $BENCH_CDS (see $1); rebuild it with mvn package" >&2; return 1
  fi
}

# start_paysync <log>: BENCH_JAVA (default: java on the PATH), BENCH_JAR (default: this build's), prod profile, sync and expiry off (B1 measures the callback alone); sets PAYSYNC_PID.
start_paysync() {
  CAMEL_MAIN_PROFILE=prod CAMEL_SERVER_PORT=$BENCH_PORT CAMEL_MANAGEMENT_PORT=$BENCH_PORT \
  PAYSYNC_DB_URL="jdbc:postgresql://$PGHOST:5432/$BENCH_DB" PAYSYNC_DB_USERNAME=$PGUSER PAYSYNC_DB_PASSWORD= \
  PAYSYNC_DB_POOL_SIZE=${BENCH_POOL:-8} \
  PAYSYNC_GATEWAY_WEBHOOK_SECRET="$BENCH_SECRET" PAYSYNC_ADMIN_TOKEN=bench-admin-token-0123456789 \
  PAYSYNC_API_TOKEN=bench-shop-token-0123456789 \
  PAYSYNC_THIRD_PARTY_URL=http://127.0.0.1:9/unused PAYSYNC_SYNC_ENABLED=false PAYSYNC_PAYMENT_EXPIRY_ENABLED=false \
  ${BENCH_JAVA:-java} $CDS_OPTS ${BENCH_JAVA_OPTS:-} -jar "${BENCH_JAR:-target/paysync.jar}" > "$1" 2>&1 9>&- &  # 9>&-: a server left running must not hold the bench lock
  PAYSYNC_PID=$!
}

# wait_ready: prints the milliseconds from now until /observe/health/ready answers 200.
wait_ready() {
  local start=$(date +%s%N)
  for _ in $(seq 1 3000); do
    if curl -fs -o /dev/null "http://127.0.0.1:$BENCH_PORT/observe/health/ready"; then
      echo $(( ($(date +%s%N) - start) / 1000000 )); return 0
    fi
    kill -0 "$PAYSYNC_PID" 2>/dev/null || { echo "paysync exited" >&2; return 1; }
    sleep 0.01
  done
  return 1
}

stop_paysync() {
  kill "$PAYSYNC_PID" 2>/dev/null || true
  wait "$PAYSYNC_PID" 2>/dev/null || true
}

# start_vertx_baseline <port> <log> [java options...]: bench/ingest's plain Vert.x handler (built beforehand with
# mvn -f bench/ingest/pom.xml package) on BENCH_DB with Paysync's pool size, secret and PostgreSQL statements; sets
# BASE_STARTED_PID once it answers /ready. BASE_BURN_US in the environment adds that much CPU to every callback (B1's
# what-if cell, bench/b1-callbacks.sh).
start_vertx_baseline() {
  local port=$1 log=$2
  shift 2
  BASE_PORT=$port BASE_DB_URL="jdbc:postgresql://$PGHOST:5432/$BENCH_DB" BASE_DB_USER=$PGUSER \
  BASE_POOL=${BENCH_POOL:-8} BASE_SECRET="$BENCH_SECRET" BASE_SQL_DIR=src/main/resources/sql/postgresql \
    java "$@" -cp "bench/ingest/target/classes:bench/ingest/target/lib/*" io.paysync.bench.VertxBaseline \
    > "$log" 2>&1 9>&- &
  BASE_STARTED_PID=$!
  until curl -fs -o /dev/null "http://127.0.0.1:$port/ready"; do
    kill -0 "$BASE_STARTED_PID" 2>/dev/null || { echo "the Vert.x handler exited, see $log" >&2; return 1; }
    sleep 0.1
  done
}

# ----- B2/B3 (sync): several Paysync workers with sync on, the bench tools in bench/sync/ -----

BENCH_TOOLS_CP="bench/sync/target/classes:bench/sync/target/lib/*"
build_bench_tools() { # every time, so a changed stub or peer is never run from stale classes (a few seconds)
  mvn -q -B -ntp -f bench/sync/pom.xml package
}

# start_sync_worker <n> <log>: Paysync worker n (port BENCH_PORT+n), prod profile, sync on against $BENCH_STUB_URL,
# expiry off (so the never-paid orders stay Pending); appends its pid to WORKER_PIDS and its port to WORKER_PORTS.
WORKER_PIDS=(); WORKER_PORTS=(); WORKER_LOGS=()
start_sync_worker() {
  local port=$((BENCH_PORT + $1))
  CAMEL_MAIN_PROFILE=prod CAMEL_SERVER_PORT=$port CAMEL_MANAGEMENT_PORT=$port \
  PAYSYNC_DB_URL="jdbc:postgresql://$PGHOST:5432/$BENCH_DB" PAYSYNC_DB_USERNAME=$PGUSER PAYSYNC_DB_PASSWORD= \
  PAYSYNC_DB_POOL_SIZE=${BENCH_POOL:-8} \
  PAYSYNC_GATEWAY_WEBHOOK_SECRET="$BENCH_SECRET" PAYSYNC_ADMIN_TOKEN=bench-admin-token-0123456789 \
  PAYSYNC_API_TOKEN=bench-shop-token-0123456789 \
  PAYSYNC_THIRD_PARTY_URL="$BENCH_STUB_URL" PAYSYNC_SYNC_ENABLED=true PAYSYNC_PAYMENT_EXPIRY_ENABLED=false \
  PAYSYNC_SYNC_PERIOD_MS=${BENCH_SYNC_PERIOD_MS:-100} PAYSYNC_SYNC_BATCH_SIZE=${BENCH_SYNC_BATCH:-50} \
  PAYSYNC_SYNC_CONCURRENCY=${BENCH_SYNC_CONCURRENCY:-1} \
  PAYSYNC_SYNC_WORKER_ID="bench-$1" \
  java ${BENCH_JAVA_OPTS:-} -jar target/paysync.jar > "$2" 2>&1 9>&- &
  WORKER_PIDS+=($!); WORKER_PORTS+=($port); WORKER_LOGS+=("$2")
}

# start_dbs_worker <n> <log>: one db-scheduler peer process with Paysync's pool size, polling interval, calls in
# flight (threads = paysync.sync.concurrency) and batch (lock-and-fetch upper limit x threads = batch size).
start_dbs_worker() {
  local threads=${BENCH_DBS_THREADS:-${BENCH_SYNC_CONCURRENCY:-1}}
  java ${BENCH_JAVA_OPTS:-} -cp "$BENCH_TOOLS_CP" io.paysync.bench.DbSchedulerPeer \
    "jdbc:postgresql://$PGHOST:5432/$BENCH_DB" "$BENCH_STUB_URL" "$threads" "${BENCH_POOL:-8}" \
    "${BENCH_SYNC_PERIOD_MS:-100}" 0.5 "$(python3 -c "print(${BENCH_SYNC_BATCH:-50} / $threads)")" > "$2" 2>&1 9>&- &
  WORKER_PIDS+=($!); WORKER_PORTS+=(0); WORKER_LOGS+=("$2")
}

# wait_workers_ready <log...>: Paysync answers /observe/health/ready; the peer prints "started".
wait_workers_ready() {
  local i
  for i in "${!WORKER_PIDS[@]}"; do
    for _ in $(seq 1 1200); do
      if [ "${WORKER_PORTS[$i]}" != 0 ]; then
        curl -fs -o /dev/null "http://127.0.0.1:${WORKER_PORTS[$i]}/observe/health/ready" && break
      else
        grep -qs "started" "${WORKER_LOGS[$i]}" && break
      fi
      kill -0 "${WORKER_PIDS[$i]}" 2>/dev/null || { echo "worker $i exited, see ${WORKER_LOGS[$i]}" >&2; return 1; }
      sleep 0.05
    done
  done
}

stop_workers() { # SIGTERM (graceful), then SIGKILL whatever still runs after 15 s
  local p
  for p in "${WORKER_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for _ in $(seq 1 150); do
    local alive=0
    for p in "${WORKER_PIDS[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break
    sleep 0.1
  done
  for p in "${WORKER_PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  for p in "${WORKER_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  WORKER_PIDS=(); WORKER_PORTS=(); WORKER_LOGS=()
}

# start_stub <port>: the third-party stub (bench/sync Stub.java); sets STUB_PID and BENCH_STUB_URL.
start_stub() {
  java -Xmx256m -cp "$BENCH_TOOLS_CP" io.paysync.bench.Stub "$1" 0 > "$OUT/stub.log" 2>&1 9>&- &
  STUB_PID=$!
  BENCH_STUB_URL="http://127.0.0.1:$1"
  for _ in $(seq 1 200); do curl -fs -o /dev/null "$BENCH_STUB_URL/counts" && return 0; sleep 0.05; done
  echo "stub did not start" >&2; return 1
}
