#!/usr/bin/env bash
# Builds the image from the repository's Dockerfile, unchanged, with podman, and runs the operator's checks against
# it: each prints PASS or FAIL with the reason, and the script exits non-zero when any fails. Ends with a summary of
# the figures (build time, image size, time and CPU to ready with and without the CDS archive, stop time).
#
#   image/check.sh [--no-cache]    (as root: rootful podman, debootstrap for the stand-in base images; --no-cache
#                                   builds every layer again, for the build time of a clean build)
#
# podman's settings live in /var/tmp/paysync-image (image/podman-env.sh), nothing under /etc. Base images missing
# locally are made from Debian packages first (image/stand-in-bases.sh), once. The containers run with
# --network host, so they reach the stub third party this script runs on 127.0.0.1, and use the image's own ports
# 8080 and 8081, which must be free on this machine.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
. "$HERE/podman-env.sh"
# Without systemd podman schedules no health checks and says so at each run and removal: the checks below run them
# (podman healthcheck run), so those lines are noise here.
exec 2> >(grep --line-buffered -v 'unable to get systemd connection' >&2)

IMAGE=${PAYSYNC_CHECK_IMAGE:-localhost/paysync:check}
NO_CACHE=
[ "${1:-}" = --no-cache ] && NO_CACHE=1
PREFIX=paysync-check
WORK=$(mktemp -d "$PAYSYNC_IMAGE_HOME/check.XXXXXX")
API=8080
MGMT=8081
FAILS=0
PASSED=()
FAILED=()
declare -A FIGURE

pass() { echo "PASS $1: $2"; PASSED+=("$1"); }
fail() { echo "FAIL $1: $2"; FAILED+=("$1"); FAILS=$((FAILS + 1)); }
info() { echo "     $*"; }
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc | awk '{printf "%.2f", $1}'; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
json_field() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get(sys.argv[1]) if isinstance(d, dict) else "")' "$1" 2>/dev/null; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

cleanup() {
    for c in $(podman ps -a --filter "name=^$PREFIX" --format '{{.Names}}'); do
        podman rm -f -t 0 "$c" > /dev/null 2>&1
    done
    podman volume rm -f "$PREFIX-data" > /dev/null 2>&1
    [ -n "${STUB_PID:-}" ] && kill "$STUB_PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

# ----- base images and build -----
"$HERE/stand-in-bases.sh" || { echo "FAIL build: no base images"; exit 1; }

echo "build: podman build --format docker --network host${NO_CACHE:+ --no-cache} -t $IMAGE $REPO (the working tree's Dockerfile, as it is)"
start=$(now)
if ! podman build --format docker --network host ${NO_CACHE:+--no-cache} -t "$IMAGE" "$REPO" > "$WORK/build.log" 2>&1; then
    tail -40 "$WORK/build.log"
    fail build "podman build failed (above)"
    exit 1
fi
FIGURE[build]="$(since "$start") s"
STEPS=$(grep -c '^\[[0-9]/[0-9]\] STEP' "$WORK/build.log")
CACHED=$(grep -c '^--> Using cache' "$WORK/build.log")
FIGURE[size]=$(podman image inspect --format '{{.Size}}' "$IMAGE" | awk '{printf "%d MB", $1/1e6}')
pass build "built in ${FIGURE[build]}, image ${FIGURE[size]}"

cleanup_containers_only() { for c in $(podman ps -a --filter "name=^$PREFIX" --format '{{.Names}}'); do podman rm -f -t 0 "$c" > /dev/null 2>&1; done; }
cleanup_containers_only
for p in $API $MGMT; do
    if port_open $p; then
        fail ports "port $p is in use on this machine; the checks need 8080 and 8081 free (--network host)"
        exit 1
    fi
done

# ----- the stub third party and the prod settings -----
STUB_PORT=$(free_port)
RECORDS="$WORK/stub-records.jsonl"
: > "$RECORDS"
python3 "$HERE/stub-third-party.py" "$STUB_PORT" "$RECORDS" &
STUB_PID=$!
for _ in $(seq 50); do port_open "$STUB_PORT" && break; sleep 0.1; done

API_TOKEN="check-shop-token-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
ADMIN_TOKEN="check-admin-token-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
cat > "$WORK/prod.env" <<EOF
PAYSYNC_DB_URL=jdbc:h2:file:/app/data/paysync
PAYSYNC_DB_USERNAME=sa
PAYSYNC_DB_PASSWORD=check-h2-password
PAYSYNC_GATEWAY_WEBHOOK_SECRET=whsec_$(head -c 32 /dev/urandom | base64)
PAYSYNC_ADMIN_TOKEN=$ADMIN_TOKEN
PAYSYNC_API_TOKEN=$API_TOKEN
PAYSYNC_THIRD_PARTY_URL=http://127.0.0.1:$STUB_PORT
EOF
info "prod settings given as env: $(cut -d= -f1 "$WORK/prod.env" | tr '\n' ' ')(H2 file DB in /app/data)"
info "stub third party on 127.0.0.1:$STUB_PORT, pid $STUB_PID"

# name, then podman run options; prints nothing, starts detached
run() {
    local name=$1; shift
    podman run -d --name "$name" --network host --env-file "$WORK/prod.env" "$@" "$IMAGE" > /dev/null
}

# Waits for management /observe/health/ready = 200 on $2 (default 8081); sets READY_S; fails when the container exits.
wait_ready() {
    local name=$1 port=${2:-$MGMT} start=$3 limit=${4:-90}
    while :; do
        if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/observe/health/ready")" = 200 ]; then
            READY_S=$(since "$start")
            READY_CPU=$(cpu_seconds "$name")
            return 0
        fi
        if [ "$(podman inspect --format '{{.State.Running}}' "$name" 2>/dev/null)" != true ]; then
            READY_S=
            return 1
        fi
        if [ "$(echo "$(now) - $start > $limit" | bc)" = 1 ]; then
            READY_S=
            return 1
        fi
        sleep 0.05
    done
}

# CPU seconds the container's JVM (pid 1, all its threads) has used so far: what the archive saves, and unlike the
# wall-clock time it does not grow with the machine's other work.
cpu_seconds() {
    local pid
    pid=$(podman inspect --format '{{.State.Pid}}' "$1" 2>/dev/null)
    awk -v hz="$(getconf CLK_TCK)" '{sub(/.*\) /, ""); printf "%.2f", ($12 + $13) / hz}' "/proc/$pid/stat" 2>/dev/null
}

health_status() { podman inspect --format '{{.State.Health.Status}}' "$1" 2>/dev/null; }
health_last_output() {
    podman inspect --format '{{range .State.Health.Log}}{{.ExitCode}} {{.Output}}{{"\n"}}{{end}}' "$1" 2>/dev/null \
        | grep -v '^$' | tail -1 | grep -v 'Picked up JDK_JAVA_OPTIONS' || true
}
# The probe's own line from the last health log entry (the JVM also notes JDK_JAVA_OPTIONS there).
health_probe_line() {
    podman inspect --format '{{range .State.Health.Log}}{{.Output}}{{"\x1e"}}{{end}}' "$1" 2>/dev/null \
        | awk 'BEGIN{RS="\x1e"} NF{last=$0} END{print last}' | grep 'HealthProbe' | head -1
}
# Runs the image's HEALTHCHECK until the status is $2 (healthy or unhealthy) or $3 tries are made.
healthcheck_until() {
    local name=$1 want=$2 tries=${3:-10}
    for _ in $(seq "$tries"); do
        podman healthcheck run "$name" > /dev/null 2>&1
        [ "$(health_status "$name")" = "$want" ] && return 0
        sleep 1
    done
    return 1
}

http() { # method url [body] -> status in $STATUS, body in $BODY
    local method=$1 url=$2 data=${3:-}
    if [ -n "$data" ]; then
        STATUS=$(curl -s -o "$WORK/body" -w '%{http_code}' -X "$method" "$url" -H "Authorization: Bearer $API_TOKEN" \
            -H 'Content-Type: application/json' --data-binary "$data")
    else
        STATUS=$(curl -s -o "$WORK/body" -w '%{http_code}' -X "$method" "$url" -H "Authorization: Bearer $API_TOKEN")
    fi
    BODY=$(cat "$WORK/body" 2>/dev/null)
}

# ----- the main container: default ports, a named volume -----
MAIN=$PREFIX-main
podman volume rm -f "$PREFIX-data" > /dev/null 2>&1
podman volume create "$PREFIX-data" > /dev/null
start=$(now)
run "$MAIN" -v "$PREFIX-data:/app/data"
# Straight after the start, before the JVM listens: the probe cannot reach management yet and says why.
podman healthcheck run "$MAIN" > /dev/null 2>&1
EARLY_PROBE=$(health_probe_line "$MAIN")
if wait_ready "$MAIN" $MGMT "$start"; then
    READY_CDS=("$READY_S")
    CPU_MAIN=$READY_CPU
    http GET "http://127.0.0.1:$API/api/orders/x"
    ctype=$(curl -s -o /dev/null -w '%{content_type}' -H "Authorization: Bearer $API_TOKEN" "http://127.0.0.1:$API/api/orders/x")
    if [[ $STATUS == 4* ]] && [[ $ctype == *json* ]]; then
        pass a "ready in ${READY_S} s: management :$MGMT /observe/health/ready 200; API :$API GET /api/orders/x $STATUS $ctype ${BODY:0:100}"
    else
        fail a "ready on :$MGMT, but API :$API GET /api/orders/x answered '$STATUS' ($ctype) ${BODY:0:100}"
    fi
else
    fail a "not ready within 90 s; log: $(podman logs "$MAIN" 2>&1 | tail -5 | tr '\n' ' ')"
    echo "(the other checks need a running container; stopping here)"
    exit 1
fi

# b. non-root
ids=$(podman exec "$MAIN" sh -c 'id -u; id -un; awk "/^Uid:/{print \$2}" /proc/1/status' 2>/dev/null | tr '\n' ' ')
read -r uid uname pid1uid <<< "$ids"
if [ "$uid" = 10001 ] && [ "$pid1uid" = 10001 ]; then
    pass b "runs as $uname (uid $uid); the JVM (pid 1) has uid $pid1uid"
else
    fail b "expected uid 10001, got exec uid '$uid' ($uname), pid 1 uid '$pid1uid'"
fi

# c. HEALTHCHECK healthy on the default ports
hc=$(podman image inspect --format '{{json .Config.Healthcheck}}' "$IMAGE")
info "image HEALTHCHECK: $hc"
if healthcheck_until "$MAIN" healthy 10; then
    pass c1 "healthy on the default ports (podman healthcheck run; status $(health_status "$MAIN"))"
else
    fail c1 "not healthy on the default ports: $(health_status "$MAIN"); last: $(health_last_output "$MAIN")"
fi
if [[ $EARLY_PROBE == *"connection refused on port $MGMT"* ]]; then
    pass c3 "the probe run before the JVM listened said: $EARLY_PROBE"
else
    info "(the probe run right after the start found management already up or said: '$EARLY_PROBE')"
fi

# d. the CDS archive is mapped by the running JVM
if podman exec "$MAIN" grep -q /app/paysync.jsa /proc/1/maps 2>/dev/null; then
    pass d1 "the JVM (pid 1) maps /app/paysync.jsa; log: $(podman logs "$MAIN" 2>&1 | grep -m1 'Picked up JDK_JAVA_OPTIONS')"
else
    fail d1 "the JVM does not map /app/paysync.jsa; log: $(podman logs "$MAIN" 2>&1 | grep -iE 'cds|shar' | head -3 | tr '\n' ' ')"
fi

# e. a signed callback for an order reaches the stub third party; the order ends Completed
ORDER="IMG-$(date +%s)"
http POST "http://127.0.0.1:$API/api/orders" "{\"orderNumber\":\"$ORDER\",\"amount\":\"19.99\",\"currency\":\"EUR\"}"
created=$STATUS
CALLBACK="{\"orderNumber\":\"$ORDER\",\"transactionId\":\"gw_$ORDER\",\"amount\":\"19.99\",\"currency\":\"EUR\",\"status\":\"succeeded\"}"
podman exec "$MAIN" java -jar /app/paysync.jar sign "$CALLBACK" 2>/dev/null > "$WORK/headers.txt"
cb_status=$(curl -s -o "$WORK/cb" -w '%{http_code}' -X POST "http://127.0.0.1:$API/api/payments/callback" \
    -H 'Content-Type: application/json' -H @"$WORK/headers.txt" --data-binary "$CALLBACK")
sync=
for _ in $(seq 60); do
    http GET "http://127.0.0.1:$API/api/orders/$ORDER"
    sync=$(echo "$BODY" | json_field syncStatus)
    [ "$sync" = Completed ] && break
    sleep 0.5
done
seen=$(grep -c "\"path\": \"/records\".*$ORDER" "$RECORDS")
if [ "$created" = 201 ] && [ "$cb_status" = 200 ] && [ "$sync" = Completed ] && [ "$seen" -ge 1 ]; then
    pass e "order $ORDER created (201), signed callback $(cat "$WORK/cb") (200; headers from java -jar paysync.jar sign), stub got POST /records, order $(echo "$BODY" | json_field paymentStatus)/$sync, record $(echo "$BODY" | json_field thirdPartyGuid)"
else
    fail e "create $created, callback $cb_status $(cat "$WORK/cb"), syncStatus '$sync', stub saw $seen POST /records for $ORDER; order: ${BODY:0:200}"
fi

# i. /app/data is a volume; the named volume holds the H2 file, owned by paysync, and outlives the container
volumes=$(podman image inspect --format '{{json .Config.Volumes}}' "$IMAGE")
owner=$(podman exec "$MAIN" sh -c 'stat -c "%u %n" /app/data /app/data/paysync.mv.db' 2>&1 | tr '\n' ' ')
mountpoint=$(podman volume inspect --format '{{.Mountpoint}}' "$PREFIX-data")

# c. unhealthy, with the reason in the health log: a JVM that no longer answers (stopped with SIGSTOP). Failures
# count only after the HEALTHCHECK's start period.
started=$(date -d "$(podman inspect --format '{{.State.StartedAt}}' "$MAIN" | sed 's/ +0000 UTC//')" +%s)
period=$(podman image inspect --format '{{json .Config.Healthcheck.StartPeriod}}' "$IMAGE" | awk '{print int($1/1e9)}')
while [ "$(date +%s)" -le $((started + period + 1)) ]; do sleep 1; done
pid=$(podman inspect --format '{{.State.Pid}}' "$MAIN")
kill -STOP "$pid"
if healthcheck_until "$MAIN" unhealthy 6; then
    pass c2 "a frozen JVM (SIGSTOP) is $(health_status "$MAIN"); health log: $(health_probe_line "$MAIN")"
else
    fail c2 "a frozen JVM is '$(health_status "$MAIN")'; health log: $(health_probe_line "$MAIN")"
fi
kill -CONT "$pid"
sleep 1

# h. SIGTERM stops it within seconds
start=$(now)
podman stop -t 30 "$MAIN" > /dev/null
FIGURE[stop]="$(since "$start") s"
code=$(podman inspect --format '{{.State.ExitCode}}' "$MAIN")
last=$(podman logs "$MAIN" 2>&1 | grep -v '^\s*$' | tail -1 | cut -c1-160)
if [ "$(echo "${FIGURE[stop]% s} < 10" | bc)" = 1 ] && [ "$code" != 137 ]; then
    pass h "podman stop (SIGTERM) took ${FIGURE[stop]}, exit code $code; last log line: $last"
else
    fail h "podman stop took ${FIGURE[stop]}, exit code $code (137 = killed after the timeout)"
fi

# i, continued: a second container on the same volume finds the order
podman rm "$MAIN" > /dev/null
start=$(now)
run "$MAIN-again" -v "$PREFIX-data:/app/data"
if wait_ready "$MAIN-again" $MGMT "$start"; then
    READY_CDS+=("$READY_S")
    CPU_AGAIN=$READY_CPU
    http GET "http://127.0.0.1:$API/api/orders/$ORDER"
    again=$STATUS/$(echo "$BODY" | json_field syncStatus)
else
    again="not ready: $(podman logs "$MAIN-again" 2>&1 | tail -3 | tr '\n' ' ')"
fi
podman rm -f -t 10 "$MAIN-again" > /dev/null
if [[ $volumes == *'"/app/data"'* ]] && [[ $owner == "10001 /app/data 10001 /app/data/paysync.mv.db "* ]] \
    && [ "$again" = 200/Completed ]; then
    pass i "image volumes $volumes; in the named volume ($mountpoint) owner uid: $owner; a new container on it reads order $ORDER: $again"
else
    fail i "image volumes $volumes; owner: $owner; a new container on the volume: $again"
fi

# d, continued: time and CPU to ready with the archive and without it (JDK_JAVA_OPTIONS emptied), alternating
READY_NO_CDS=()
CPU_CDS=("$CPU_MAIN" ${CPU_AGAIN:-})
CPU_NO_CDS=()
for round in 1 2 3; do
    for mode in cds none; do
        name=$PREFIX-timing-$mode-$round
        start=$(now)
        if [ $mode = cds ]; then run "$name" --rm; else run "$name" --rm -e JDK_JAVA_OPTIONS=; fi
        if wait_ready "$name" $MGMT "$start"; then
            if [ $mode = cds ]; then
                READY_CDS+=("$READY_S")
                CPU_CDS+=("$READY_CPU")
            else
                READY_NO_CDS+=("$READY_S")
                CPU_NO_CDS+=("$READY_CPU")
                podman exec "$name" grep -q /app/paysync.jsa /proc/1/maps && fail d2 "JDK_JAVA_OPTIONS= still maps the archive"
            fi
        else
            fail d2 "$name not ready: $(podman logs "$name" 2>&1 | tail -3 | tr '\n' ' ')"
        fi
        podman stop -t 10 "$name" > /dev/null 2>&1
    done
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END{if (NR) print a[int((NR+1)/2)]}'; }
FIGURE[ready_cds]="median $(median "${READY_CDS[@]}") s of ${READY_CDS[*]}; CPU median $(median "${CPU_CDS[@]}") s of ${CPU_CDS[*]}"
FIGURE[ready_none]="median $(median "${READY_NO_CDS[@]}") s of ${READY_NO_CDS[*]}; CPU median $(median "${CPU_NO_CDS[@]}") s of ${CPU_NO_CDS[*]}"
# The CPU the JVM spends to get ready is what the archive saves; the wall-clock time is reported beside it.
if [ ${#CPU_NO_CDS[@]} -eq 3 ] && [ "$(echo "$(median "${CPU_CDS[@]}") < $(median "${CPU_NO_CDS[@]}")" | bc)" = 1 ]; then
    pass d2 "to ready (podman run to /observe/health/ready 200), with the archive: ${FIGURE[ready_cds]}; without: ${FIGURE[ready_none]}"
else
    fail d2 "the archive saved no CPU to ready: with ${FIGURE[ready_cds]}; without ${FIGURE[ready_none]}"
fi

# c. the HEALTHCHECK follows a moved management port
MOVED=$(free_port)
name=$PREFIX-moved
start=$(now)
run "$name" -e CAMEL_MANAGEMENT_PORT="$MOVED"
if wait_ready "$name" "$MOVED" "$start" && healthcheck_until "$name" healthy 10; then
    if port_open $MGMT; then
        fail c4 "healthy, but something still answers on $MGMT"
    else
        pass c4 "CAMEL_MANAGEMENT_PORT=$MOVED: healthy ($(health_status "$name")), nothing on $MGMT"
    fi
else
    fail c4 "CAMEL_MANAGEMENT_PORT=$MOVED: status '$(health_status "$name")'; health log: $(health_probe_line "$name"); log: $(podman logs "$name" 2>&1 | tail -2 | tr '\n' ' ')"
fi
podman rm -f -t 10 "$name" > /dev/null

# f. a routes folder holding only the integrator's third-party requests, adapted to another path
ADAPTED="$WORK/routes-adapted"
mkdir -p "$ADAPTED"
sed 's#/records#/v2/records#g' "$REPO/routes/third-party.camel.yaml" > "$ADAPTED/third-party.camel.yaml"
[ -d "$REPO/routes/third-party" ] && cp -r "$REPO/routes/third-party" "$ADAPTED/"
chmod -R a+rX "$ADAPTED"
info "adapted routes folder: $(cd "$ADAPTED" && find . -type f | sort | tr '\n' ' ')(third-party.camel.yaml: /records -> /v2/records)"
name=$PREFIX-adapted
start=$(now)
run "$name" -v "$ADAPTED:/app/routes:ro" -e PAYSYNC_DB_URL=jdbc:h2:mem:adapted
if wait_ready "$name" $MGMT "$start" 60; then
    ORDER_F="IMG-F-$(date +%s)"
    http POST "http://127.0.0.1:$API/api/orders" "{\"orderNumber\":\"$ORDER_F\",\"amount\":\"5.00\",\"currency\":\"EUR\"}"
    created=$STATUS
    CALLBACK="{\"orderNumber\":\"$ORDER_F\",\"transactionId\":\"gw_$ORDER_F\",\"amount\":\"5.00\",\"currency\":\"EUR\",\"status\":\"succeeded\"}"
    podman exec "$name" java -jar /app/paysync.jar sign "$CALLBACK" 2>/dev/null > "$WORK/headers.txt"
    curl -s -o /dev/null -X POST "http://127.0.0.1:$API/api/payments/callback" -H 'Content-Type: application/json' \
        -H @"$WORK/headers.txt" --data-binary "$CALLBACK"
    sync=
    for _ in $(seq 60); do
        http GET "http://127.0.0.1:$API/api/orders/$ORDER_F"
        sync=$(echo "$BODY" | json_field syncStatus)
        [ "$sync" = Completed ] && break
        sleep 0.5
    done
    seen=$(grep -c "\"path\": \"/v2/records\".*$ORDER_F" "$RECORDS")
    if [ "$created" = 201 ] && [ "$seen" -ge 1 ] && [ "$sync" = Completed ]; then
        pass f "mounted adapted routes: stub got POST /v2/records for $ORDER_F, order $sync"
    else
        fail f "mounted adapted routes: create $created, stub saw $seen POST /v2/records, syncStatus '$sync'"
    fi
else
    fail f "a routes folder with only the integrator's files did not start: $(podman logs "$name" 2>&1 | grep -iE 'error|refus|missing|not found' | head -2 | cut -c1-300 | tr '\n' ' ')"
fi
podman rm -f -t 10 "$name" > /dev/null

# g. a routes folder missing an integration point is refused, naming the file
BROKEN="$WORK/routes-broken"
mkdir -p "$BROKEN"
[ -d "$REPO/routes/third-party" ] && cp -r "$REPO/routes/third-party" "$BROKEN/"
chmod -R a+rX "$BROKEN"
name=$PREFIX-broken
run "$name" -v "$BROKEN:/app/routes:ro" -e PAYSYNC_DB_URL=jdbc:h2:mem:broken
code=$(timeout 60 podman wait "$name" 2>/dev/null || echo "still running after 60 s")
podman healthcheck run "$name" > /dev/null 2>&1
status=$(health_status "$name")
line=$(podman logs "$name" 2>&1 | grep -m1 'ERROR.*third-party.camel.yaml' | cut -c1-500)
if [ "$code" != 0 ] && [[ $code =~ ^[0-9]+$ ]] && [ "$status" != healthy ] && [ -n "$line" ]; then
    pass g "without third-party.camel.yaml: exit code $code, health '$status', log: $line"
else
    fail g "without third-party.camel.yaml: exit '$code', health '$status', line naming the file: '${line:-none}'; first error: $(podman logs "$name" 2>&1 | grep -m1 ERROR | cut -c1-300)"
fi
podman rm -f -t 0 "$name" > /dev/null

# ----- summary -----
echo
echo "== summary =="
echo "image:               $IMAGE ($(podman image inspect --format '{{.Id}}' "$IMAGE" | cut -c1-12))"
echo "build time:          ${FIGURE[build]} (podman build --format docker --network host$([ -n "$NO_CACHE" ] && echo ' --no-cache'); $CACHED of $STEPS steps from the layer cache)"
echo "image size:          ${FIGURE[size]}"
echo "to ready, CDS:       ${FIGURE[ready_cds]}"
echo "to ready, no CDS:    ${FIGURE[ready_none]} (JDK_JAVA_OPTIONS=)"
echo "stop (SIGTERM):      ${FIGURE[stop]}"
echo "machine:             $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end (timings vary with it)"
echo "passed:              ${PASSED[*]}"
echo "failed:              ${FAILED[*]:-none}"
[ "$FAILS" -eq 0 ]
