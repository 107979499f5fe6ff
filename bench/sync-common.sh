# Shared by b2-sync.sh and b3-growth.sh: the database, the stub, seeding, one timed cell and its figures.
# Sourced after common.sh; BENCH_DB and BENCH_PORT are set by the caller before common.sh.
STUB_PORT=${STUB_PORT:-18180}
JDBC_URL="jdbc:postgresql://$PGHOST:5432/$BENCH_DB"
LOCK=/tmp/paysync-bench.lock
NEVER_PAID=${BENCH_NEVER_PAID:-200}
build_bench_tools

cleanup() { stop_workers; [ -n "${STUB_PID:-}" ] && kill "$STUB_PID" 2>/dev/null; wait 2>/dev/null || true; }
trap cleanup EXIT

q() { psql -Atq -v ON_ERROR_STOP=1 -d "$BENCH_DB" "$@"; }

# A fresh database migrated by Paysync itself (Flyway), plus db-scheduler's own table and pg_stat_statements.
setup_db() {
  fresh_db
  start_paysync "$OUT/sync-migrate.log"; wait_ready > /dev/null; stop_paysync
  q <<'SQL'
CREATE EXTENSION IF NOT EXISTS pg_stat_statements;
-- db-scheduler's PostgreSQL table, as its repository's postgresql_tables.sql gives it for 16.x
create table scheduled_tasks (
  task_name text not null,
  task_instance text not null,
  task_data bytea,
  execution_time timestamp with time zone not null,
  picked BOOLEAN not null,
  picked_by text,
  last_success timestamp with time zone,
  last_failure timestamp with time zone,
  consecutive_failures INT,
  last_heartbeat timestamp with time zone,
  version BIGINT not null,
  priority SMALLINT,
  PRIMARY KEY (task_name, task_instance)
);
CREATE INDEX execution_time_idx ON scheduled_tasks (execution_time);
CREATE INDEX last_heartbeat_idx ON scheduled_tasks (last_heartbeat);
CREATE INDEX priority_execution_time_idx on scheduled_tasks (priority desc, execution_time asc);
SQL
}

# reset_data <history rows> <feed orders>: empty tables, then history (final orders, Completed with their send
# keys, Failed/Expired never synced),
# NEVER_PAID Pending orders NP-1.. that must never be sent, and Pending orders F-1.. for the feeder.
reset_data() {
  local history=$1 feed=$2
  q <<SQL
TRUNCATE adjustments, orders, order_transitions, anomalies, camel_messageprocessed, scheduled_tasks RESTART IDENTITY;
INSERT INTO orders (order_number, amount, currency, payment_status, sync_status, payment_transaction_id,
                    third_party_guid, created_at, paid_at, synced_at, sync_attempts)
SELECT 'H-' || i, 10.00, 'EUR',
       CASE WHEN i % 20 < 17 THEN 'Paid' WHEN i % 20 < 18 THEN 'Failed' ELSE 'Expired' END,
       CASE WHEN i % 20 < 17 THEN 'Completed' ELSE 'Pending' END,
       CASE WHEN i % 20 < 17 THEN 'gw_H-' || i END,
       CASE WHEN i % 20 < 17 THEN md5(i::text) END,
       now() - interval '30 days', CASE WHEN i % 20 < 17 THEN now() - interval '30 days' END,
       CASE WHEN i % 20 < 17 THEN now() - interval '30 days' END, CASE WHEN i % 20 < 17 THEN 1 ELSE 0 END
FROM generate_series(1, $history) i;
-- a synced order keeps its send key for good (Camel's message-id table), so the history has them too
INSERT INTO camel_messageprocessed (processorName, messageId, createdAt)
SELECT 'third-party-create', order_number, synced_at FROM orders WHERE sync_status = 'Completed';
INSERT INTO orders (order_number, amount, currency, created_at)
SELECT 'NP-' || i, 10.00, 'EUR', now() FROM generate_series(1, $NEVER_PAID) i;
INSERT INTO orders (order_number, amount, currency, created_at)
SELECT 'F-' || i, 10.00, 'EUR', now() FROM generate_series(1, $feed) i;
SQL
  q -c "VACUUM ANALYZE" -c "CHECKPOINT"
}

# seed_backlog <peer> <n> [prefix]: n orders D-1..n (or <prefix>1..n) Paid and unsynced in one transaction (for
# db-scheduler each with its task, scheduled in the same transaction as an outbox would).
seed_backlog() {
  local peer=$1 n=$2 p=${3:-D-} tasks=""
  [ "$peer" = dbs ] && tasks="INSERT INTO scheduled_tasks (task_name, task_instance, task_data, execution_time, picked, version)
SELECT 'sync-order', id::text, convert_to(json_build_object('orderNumber', order_number, 'transactionId',
       payment_transaction_id, 'amount', to_char(amount, 'FM999999990.00'), 'currency', currency, 'paid', true,
       'paidAt', to_char(paid_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'))::text, 'UTF8'), now(), false, 1
FROM orders WHERE order_number LIKE '$p%';"
  q <<SQL
BEGIN;
INSERT INTO orders (order_number, amount, currency, payment_status, payment_transaction_id, created_at, paid_at)
SELECT '$p' || i, 10.00, 'EUR', 'Paid', 'gw_$p' || i, now(), now() FROM generate_series(1, $n) i;
$tasks
-- Statistics as a table in service has them, committed with the rows: analyzed after the commit, a poll that came
-- between the two was planned for the empty table (a nested loop over the whole backlog) and db-scheduler's
-- lock-and-fetch ran for 10 to 13 minutes (docs/benchmarks.md). ANALYZE counts this transaction's own rows.
ANALYZE orders;
ANALYZE scheduled_tasks;
ANALYZE camel_messageprocessed;
COMMIT;
SQL
}

# id_range <prefix>: "min max" of the ids of orders <prefix>1..n. One statement inserts the rows of a prefix, so their
# ids are one range, and a poll can count them through the primary key (drained). This one reads the whole table.
id_range() {
  q -F ' ' -c "SELECT /* bench-monitor */ min(id), max(id) FROM orders WHERE order_number LIKE '$1%'"
}

# drained <prefix> "<min> <max>" <seconds>: polls every 100 ms until every order <prefix>1..n is Completed; fails after
# <seconds>. Through the id range: a poll with "order_number LIKE 'D-%'" reads the whole table every time (LIKE cannot
# use the order_number index in the C.UTF-8 collation), at 1 M rows a parallel scan of 158 ms, about a core taken
# from the worker B3 measures.
drained() {
  local until=$((SECONDS + $3))
  while [ "$(q -c "SELECT /* bench-monitor */ count(*) FROM orders WHERE id BETWEEN ${2% *} AND ${2#* }
              AND order_number LIKE '$1%' AND sync_status <> 'Completed'")" != 0 ]; do
    [ $SECONDS -lt $until ] || return 1
    sleep 0.1
  done
}

# snapshot: completed D- orders, commits of the bench database, statements (all / without BEGIN, COMMIT), one line.
snapshot() {
  q -F ' ' -c "SELECT /* bench-monitor */ (SELECT count(*) FROM orders WHERE order_number LIKE 'D-%' AND sync_status = 'Completed'),
    (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()),
    (SELECT coalesce(sum(calls), 0) FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
      WHERE d.datname = current_database() AND s.query NOT LIKE '%bench-monitor%'),
    (SELECT coalesce(sum(calls), 0) FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
      WHERE d.datname = current_database() AND s.query NOT LIKE '%bench-monitor%'
        AND upper(s.query) NOT IN ('BEGIN', 'COMMIT', 'ROLLBACK')),
    extract(epoch from clock_timestamp())"
}

start_workers() { # start_workers <peer> <n> <tag>
  local i
  for i in $(seq 1 "$2"); do
    if [ "$1" = paysync ]; then start_sync_worker "$i" "$OUT/$3-w$i.log"; else start_dbs_worker "$i" "$OUT/$3-w$i.log"; fi
  done
  wait_workers_ready
}

# cpu_snapshot: CPU time (user + system, ms) used so far by the workers, by all of PostgreSQL's processes, by the
# stub, and by the workers' JIT compiler threads (C1 and C2, part of the workers' figure), one line
# "workers postgres stub jit"; two snapshots give where a window's CPU went (the machine has two cores, so a
# CPU-bound cell is decided by CPU per order, not by waiting). PostgreSQL's figure is a sum over the processes alive
# at each snapshot: the workers' pooled connections live through the window; a backend that ends inside it (the
# harness's own psql) is not counted, autovacuum is.
cpu_snapshot() {
  python3 - "$STUB_PID" "${WORKER_PIDS[@]}" <<'PY'
import os, sys
tick = os.sysconf('SC_CLK_TCK')
def stat(path):
    try:
        s = open(path).read()
    except OSError:
        return '', 0
    f = s.rsplit(')', 1)[1].split()
    return s[s.index('(') + 1:s.rindex(')')], int(f[11]) + int(f[12])
def jit(pid):
    try:
        tasks = os.listdir(f'/proc/{pid}/task')
    except OSError:
        return 0
    return sum(t for name, t in (stat(f'/proc/{pid}/task/{task}/stat') for task in tasks) if 'CompilerThre' in name)
stub, workers = sys.argv[1], sys.argv[2:]
pg = sum(t for name, t in (stat(f'/proc/{p}/stat') for p in os.listdir('/proc') if p.isdigit()) if name == 'postgres')
print(*(round(v * 1000 / tick) for v in (sum(stat(f'/proc/{w}/stat')[1] for w in workers), pg,
                                          stat(f'/proc/{stub}/stat')[1], sum(jit(w) for w in workers))))
PY
}

# settle <min s> <max s>: a drain's warm-up: at least min s, then on until the workers' JIT compilers used less than
# a tenth of a core over the last 5 s, at most max s; prints the seconds it waited. After a fixed warm-up alone the
# JIT can still take a third of the workers' CPU in the window (2 and 4 workers), which B2 would count per order.
settle() {
  local waited=$1 a b
  sleep "$1"
  a=$(cpu_snapshot | cut -d' ' -f4)
  while [ "$waited" -lt "$2" ]; do
    sleep 5
    waited=$((waited + 5))
    b=$(cpu_snapshot | cut -d' ' -f4)
    [ $((b - a)) -lt 500 ] && break
    a=$b
  done
  echo "$waited"
}

# warn_long_statements <tag>: a peer's statement still running after 20 s is a stall (a bad plan), not throughput;
# say so on stderr and in the cell's files, so its figure is not read as the peer's speed.
warn_long_statements() {
  local long; long=$(q -F ' | ' -c "SELECT /* bench-monitor */ pid, round(extract(epoch FROM now() - query_start)),
      regexp_replace(left(query, 100), '\s+', ' ', 'g') FROM pg_stat_activity WHERE datname = current_database()
      AND state = 'active' AND now() - query_start > interval '20 seconds' AND query NOT LIKE '%bench-monitor%'")
  [ -z "$long" ] && return 0
  printf 'STALL in %s: statements running for more than 20 s (pid | s | query):\n%s\n' "$1" "$long" \
    | tee "$OUT/$1-stall.txt" >&2
  return 1
}

# Statements of the window, most called first (the per-order profile).
top_statements() {
  q -F ' | ' -c "SELECT /* bench-monitor */ calls, round(mean_exec_time::numeric, 3) AS mean_ms,
      regexp_replace(left(query, 110), '\s+', ' ', 'g') FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
    WHERE d.datname = current_database() AND query NOT LIKE '%bench-monitor%' ORDER BY calls DESC LIMIT 15"
}

# Early sends found afterwards: an order whose first request reached the stub before it was paid, or that is not
# Paid at all. Also any order the database shows synced without being Paid.
early_from_db() {
  curl -fs "$BENCH_STUB_URL/first-seen" > "$OUT/first-seen.tsv"
  q <<SQL
CREATE TEMP TABLE seen (order_number text, micros bigint);
\copy seen FROM '$OUT/first-seen.tsv'
SELECT /* bench-monitor */ (SELECT count(*) FROM seen s LEFT JOIN orders o USING (order_number)
         WHERE o.payment_status IS DISTINCT FROM 'Paid' OR s.micros < extract(epoch FROM o.paid_at) * 1000000)
     + (SELECT count(*) FROM orders WHERE sync_status = 'Completed' AND payment_status <> 'Paid'
          AND order_number NOT LIKE 'H-%');
SQL
}

jsonfield() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
