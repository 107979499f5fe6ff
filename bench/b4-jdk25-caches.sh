#!/usr/bin/env bash
# B4, JDK 25 option: writes, next to the built jar, the caches that bench/b4-variants/jdk25-*.env start with.
# Usage: bash bench/b4-jdk25-caches.sh     (after mvn package; JDK25 defaults to /usr/lib/jvm/temurin-25-jdk-amd64)
#   target/paysync25.jsa      dynamic AppCDS archive, JDK 25, training = the jar's `train` subcommand (as mvn package)
#   target/paysync-train.aot  AOT cache (JEP 483/514/515, -XX:AOTCacheOutput, one step), training = `train`
#   target/paysync-pg.aot     AOT cache, training = a prod start against PostgreSQL (BENCH_DB), a few requests, stop
# The product stays compiled for Java 17; these only measure what JDK 25 would do with the same jar.
source "$(dirname "$0")/common.sh"
J25=${JDK25:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
"$J25" -XX:ArchiveClassesAtExit=target/paysync25.jsa -jar target/paysync.jar train > target/cds25-training.log 2>&1
"$J25" -XX:AOTCacheOutput=target/paysync-train.aot -jar target/paysync.jar train > target/aot-training.log 2>&1
fresh_db
BENCH_JAVA=$J25 CDS_OPTS="-XX:AOTCacheOutput=target/paysync-pg.aot"
start_paysync target/aot-training-pg.log
wait_ready > /dev/null
for path in observe/health/ready observe/health/live api/openapi.yaml; do
  curl -fs -o /dev/null "http://127.0.0.1:$BENCH_PORT/$path"
done
# As an operator scrapes metrics where they share the API port, and as the shop's backend reads an order.
curl -fs -o /dev/null -u operator:bench-admin-token-0123456789 "http://127.0.0.1:$BENCH_PORT/observe/metrics"
curl -s -o /dev/null -H "Authorization: Bearer bench-shop-token-0123456789" \
  "http://127.0.0.1:$BENCH_PORT/api/orders/cds-training" || true
stop_paysync # SIGTERM: the JVM writes the cache as it exits
grep -h "AOTCache creation is complete" target/aot-training.log target/aot-training-pg.log
ls -l target/paysync25.jsa target/paysync-train.aot target/paysync-pg.aot
