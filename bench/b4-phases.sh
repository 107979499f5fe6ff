#!/usr/bin/env bash
# Where B4's start-up time goes, from the logs of bench/b4-startup.sh: the median over its runs of each phase, in ms.
# Usage: bash bench/b4-phases.sh [dir]     (default target/bench; reads b4-<n>.log and b4-<n>.start)
cd "$(dirname "${BASH_SOURCE[0]}")/.."
DIR=${1:-target/bench}
ms() { # ms <log line>: its timestamp in epoch milliseconds
  date -u -d "$(cut -c1-23 <<< "$1" | tr T ' ')" +%s%3N
}
at() { # at <log> <pattern>: epoch ms of the first line matching
  local line; line=$(grep -m1 -E "$2" "$1") || { echo ""; return; }
  ms "$line"
}
phases=("JVM start to Camel Main starting" "Camel Main: properties, profile" "Jolokia plugin (policy)"
        "beans (configure; database opens beside)" "routes loaded, auto-configuration"
        "context start (HTTP, metrics, routes)" "started to ready answered")
declare -A values
for log in "$DIR"/b4-[0-9]*.log; do
  n=${log##*/b4-}; n=${n%.log}
  [ -f "$DIR/b4-$n.start" ] || continue
  t0=$(cat "$DIR/b4-$n.start"); ready=$(cat "$DIR/b4-$n.ready")
  t=("$t0" "$(at "$log" 'Apache Camel \(Main\) .* is starting')" "$(at "$log" 'starting with profile')"
     "$(at "$log" 'Creating DefaultJolokiaPlatformHttpPlugin')" "$(at "$log" 'Paysync configured')"
     "$(at "$log" 'AbstractCamelContext - Apache Camel .* is starting')" "$(at "$log" 'AbstractCamelContext - Apache Camel .* started in')"
     "$ready")
  for i in "${!phases[@]}"; do values[$i]+="$(( t[i+1] - t[i] )) "; done
  # Not a phase of the main thread: the pool's first connection and the migration, on their own thread from the
  # end of the Jolokia step (PaysyncConfiguration starts it there) until the schema is checked.
  db=$(at "$log" 'Database schema \(')
  [ -n "$db" ] && beside+="$(( db - t[3] )) "
done
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : int((v[NR/2] + v[NR/2+1]) / 2)}'; }
printf '| %-40s | %6s | %s |\n' "phase" "median" "runs (ms)"
printf '|%s|%s|%s|\n' "------------------------------------------" "--------" "-----------"
for i in "${!phases[@]}"; do
  printf '| %-40s | %6s | %s |\n' "${phases[$i]}" "$(median ${values[$i]})" "${values[$i]% }"
done
[ -n "${beside:-}" ] && printf '| %-40s | %6s | %s |\n' "(beside: database opened and migrated)" "$(median $beside)" "${beside% }"
true
