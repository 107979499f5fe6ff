#!/usr/bin/env bash
# B4 beside JDK 25: the jar's Java 17 start (its AppCDS archive) and the same jar on JDK 25 with its AOT cache, 5 starts
# each, interleaved on the same machine (bench/b4-ab.sh). Writes target/bench/b4-jdk25.txt.
# Usage: bash bench/b4-jdk25.sh     (after mvn package; the caches are written first by bench/b4-jdk25-caches.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p target/bench
bash bench/b4-jdk25-caches.sh > target/bench/b4-jdk25-caches.log 2>&1
bash bench/b4-ab.sh 5 .=bench/b4-variants/same.env .=bench/b4-variants/jdk25-aot.env | tee target/bench/b4-jdk25.txt
