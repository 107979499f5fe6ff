#!/usr/bin/env bash
# Writes src/main/resources/cds/postgresql-start-classes.txt: the classes a start on PostgreSQL loads that the CDS
# training run (io.paysync.startup.CdsTraining, H2 only) does not reach, so that the training loads them by name.
# Usage: bash bench/cds-class-list.sh   (after mvn package; needs the PostgreSQL of common.sh; about 30 s)
# How: an archive from a training without the list, then one start on PostgreSQL with that archive and
# -Xlog:class+load; every class that still came from a jar or the JDK's modules is listed. Generated classes
# (lambdas, proxies) cannot be loaded by name, and classes of signed jars (mssql-jdbc) are never archived: left out.
BENCH_DB=${BENCH_DB:-paysync_cds_class_list}
BENCH_PORT=${BENCH_PORT:-18092}
BENCH_CDS=off
source "$(dirname "$0")/common.sh"
LIST=src/main/resources/cds/postgresql-start-classes.txt
java -XX:ArchiveClassesAtExit=target/cds-without-list.jsa -Dpaysync.cds.class-list=false -jar target/paysync.jar \
  train > "$OUT/cds-without-list.log" 2>&1
fresh_db
CDS_OPTS=-XX:SharedArchiveFile=target/cds-without-list.jsa
start_paysync "$OUT/cds-migrate.log"; wait_ready > /dev/null; stop_paysync
BENCH_JAVA_OPTS="-Xlog:class+load:file=$OUT/cds-class-load.txt" start_paysync "$OUT/cds-start.log"
wait_ready > /dev/null; curl -fs -o /dev/null -u operator:bench-admin-token-0123456789 "http://127.0.0.1:$BENCH_PORT/observe/metrics"; stop_paysync
check_cds "$OUT/cds-start.log"
signed=$(for jar in target/lib/*.jar; do
  if unzip -Z1 "$jar" | grep -E '^META-INF/[^/]+\.(SF|RSA|EC|DSA)$' > /dev/null; then echo "${jar##*/}"; fi
done | paste -sd'|')
mkdir -p "$(dirname "$LIST")"
{
  echo "# Written by bench/cds-class-list.sh: classes a start on PostgreSQL loads that the CDS training does not reach."
  grep -E 'source: (jrt:/|file:.*\.jar)' "$OUT/cds-class-load.txt" | { if [ -n "$signed" ]; then grep -vE "$signed"; else cat; fi; } \
    | awk '{print $2}' | grep -v -- '/0x' | sort -u
} > "$LIST"
echo "$(grep -vc '^#' "$LIST") classes in $LIST ($(grep -vc 'shared objects file' "$OUT/cds-class-load.txt") of the start's classes came from outside the archive)"
