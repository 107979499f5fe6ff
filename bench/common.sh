# Shared by the bench scripts: a PostgreSQL database of its own and a prod-profile Paysync on it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PGHOST=${PGHOST:-127.0.0.1} PGUSER=${PGUSER:-postgres}
BENCH_DB=${BENCH_DB:-paysync_bench}
BENCH_PORT=${BENCH_PORT:-18090}
BENCH_SECRET="whsec_$(printf 'paysync-bench-secret-0123456789ab' | base64)"
OUT=target/bench
mkdir -p "$OUT"

fresh_db() {
  psql -q -d postgres -c "DROP DATABASE IF EXISTS $BENCH_DB" -c "CREATE DATABASE $BENCH_DB"
}

# The class data sharing archive the build writes next to the jar (README "Start-up"), used as the README's run
# command uses it. BENCH_CDS=off starts without one (the figure before it), BENCH_CDS=<file> with another archive.
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
# another JVM), since the figures would then be those of a start without it.
check_cds() {
  if grep -q "Unable to use shared archive" "$1"; then
    echo "the JVM refused $BENCH_CDS (see $1); rebuild it with mvn package" >&2; return 1
  fi
}

# start_paysync <log>: prod profile, sync and expiry off (B1 measures the callback alone); sets PAYSYNC_PID.
start_paysync() {
  CAMEL_MAIN_PROFILE=prod CAMEL_SERVER_PORT=$BENCH_PORT \
  PAYSYNC_DB_URL="jdbc:postgresql://$PGHOST:5432/$BENCH_DB" PAYSYNC_DB_USERNAME=$PGUSER PAYSYNC_DB_PASSWORD= \
  PAYSYNC_DB_POOL_SIZE=${BENCH_POOL:-8} \
  PAYSYNC_GATEWAY_WEBHOOK_SECRET="$BENCH_SECRET" PAYSYNC_ADMIN_TOKEN=bench-admin-token-0123456789 \
  PAYSYNC_THIRD_PARTY_URL=http://127.0.0.1:9/unused PAYSYNC_SYNC_ENABLED=false PAYSYNC_PAYMENT_EXPIRY_ENABLED=false \
  java $CDS_OPTS ${BENCH_JAVA_OPTS:-} -jar target/paysync.jar > "$1" 2>&1 &
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
