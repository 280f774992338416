#!/usr/bin/env bash
# Failover under load: three origins behind one route, one of them killed (SIGKILL) while 1000 connections send
# GETs, through Loomgate (least-request + health checks + outlier detection + Retry) and through HAProxy (leastconn
# + health checks + option redispatch + retries 3 + retry-on all-retryable-errors), one after the other in the same
# run, each with fresh origins. Prints one markdown table: requests/s, client-visible errors (wrk's non-2xx and
# socket errors), p99 and max latency, per proxy.
#
#   bench/failover/run.sh                       # defaults below (~90 s)
#   CONNS=200 DURATION=8 KILL_AT=3 WARM=3 bench/failover/run.sh     # a short smoke run
#   PROXIES="loomgate loomgate-noretry haproxy" bench/failover/run.sh   # adds Loomgate without Retry, for the note
#
# Knobs (env): PROXIES (loomgate haproxy), CONNS (1000), DURATION (20 s), KILL_AT (5 s into the run), WARM (10 s of
# warm-up at CONNS before each run, origins all alive), LATENCY_MS (10: /api/data's delay), PIN (1: the proxy on
# core 0, origins and wrk on core 1, as ../shared/bench does; 0: no pinning), JAVA, JAR, SHARED_BENCH, BASE_PORT
# (18500: ports are probed free from there up; the shared harness's 18080/18081 are never used).
# Needs: wrk, haproxy, go (for the shared bench's Go origin), curl, a JDK 21+, the gateway jar (./mvnw -DskipTests
# package, or ./loomgate test, makes loomgate-cli/target/loomgate-gateway.jar).
set -u -o pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PROXIES=${PROXIES:-loomgate haproxy}
CONNS=${CONNS:-1000}
DURATION=${DURATION:-20}
KILL_AT=${KILL_AT:-5}
WARM=${WARM:-10}
LATENCY_MS=${LATENCY_MS:-10}
PIN=${PIN:-1}
BASE_PORT=${BASE_PORT:-18500}
JAR=${JAR:-$REPO/loomgate-cli/target/loomgate-gateway.jar}
SHARED_BENCH=${SHARED_BENCH:-}
if [[ -z $SHARED_BENCH ]]; then
    for d in "$REPO/../shared/bench" /work/shared/bench; do [[ -d $d/backend ]] && { SHARED_BENCH=$d; break; }; done
fi
find_java() {
    local j v
    for j in ${JAVA_HOME:+$JAVA_HOME/bin/java} /usr/lib/jvm/*/bin/java $(command -v java); do
        v=$("$j" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1)
        [[ ${v:-0} -ge 21 ]] && { echo "$j"; return; }
    done
}
JAVA=${JAVA:-$(find_java)}
HOST=127.0.0.1

die() { echo "failover: $*" >&2; exit 1; }
for t in wrk haproxy go curl taskset; do command -v $t >/dev/null || die "$t is missing (apt-get install wrk haproxy golang-go curl util-linux)"; done
[[ -n $JAVA ]] || die "no JDK 21+ found (set JAVA)"
[[ -f $JAR ]] || die "no $JAR: build it with ./mvnw -B -DskipTests package"
[[ -n $SHARED_BENCH ]] || die "the shared bench (its Go origin) was not found: set SHARED_BENCH"
if [[ $PIN == 1 ]]; then ON_PROXY_CORE="taskset -c 0"; ON_LOAD_CORE="taskset -c 1"; else ON_PROXY_CORE=""; ON_LOAD_CORE=""; fi

WORK=$(mktemp -d /tmp/loomgate-failover.XXXXXX)
PIDS=()
cleanup() {
    local p
    for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
    wait 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- ports: probed free from BASE_PORT up, never the shared harness's 18080/18081 -------------------------------
port_free() { ! (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }
NEXT_PORT=$BASE_PORT
free_port() {
    while :; do
        local p=$NEXT_PORT
        NEXT_PORT=$((NEXT_PORT + 1))
        ((p > 65000)) && die "no free port found above $BASE_PORT"
        [[ $p == 18080 || $p == 18081 ]] && continue
        port_free "$p" && { echo "$p"; return; }
    done
}
O1=$(free_port); O2=$(free_port); O3=$(free_port); LG_PORT=$(free_port); HA_PORT=$(free_port)

wait_ready() { # URL deadline-seconds pid: polls until the URL answers 200
    local url=$1 deadline=$((SECONDS + $2)) pid=$3
    while ((SECONDS < deadline)); do
        kill -0 "$pid" 2>/dev/null || return 1
        [[ $(curl -s -o /dev/null -m 2 -w '%{http_code}' "$url") == 200 ]] && return 0
        sleep 0.2
    done
    return 1
}

echo "building the shared bench's Go origin into $WORK" >&2
(cd "$SHARED_BENCH/backend" && go build -o "$WORK/backend" .) || die "go build of $SHARED_BENCH/backend failed"

# ---- the proxies' configurations ---------------------------------------------------------------------------------
cat > "$WORK/loomgate.yaml" <<YAML
server: { address: $HOST, port: $LG_PORT, max-connections: 20000 }
admin: { port: 0 }
access-log: { enabled: false }
routes:
  - id: api
    uris: [ "http://$HOST:$O1", "http://$HOST:$O2", "http://$HOST:$O3" ]
    predicates: [ "Path=/**" ]
    load-balancer: least-request
    health-check: { path: /hello, interval: 2s, timeout: 1s, healthy-threshold: 2, unhealthy-threshold: 2 }
    outlier-detection: { consecutive-failures: 5, base-ejection-time: 10s, max-ejection-percent: 50 }
    filters:
      - name: Retry
        args: { retries: 3, methods: GET }
YAML
sed '/filters:/,$d' "$WORK/loomgate.yaml" > "$WORK/loomgate-noretry.yaml"
cat > "$WORK/haproxy.cfg" <<CFG
global
    nbthread 1
defaults
    mode http
    option http-keep-alive
    option redispatch
    retries 3
    retry-on all-retryable-errors
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    timeout http-keep-alive 60s
    timeout queue 30s
frontend fe
    bind $HOST:$HA_PORT
    default_backend be
backend be
    balance leastconn
    http-reuse safe
    option httpchk GET /hello
    default-server check inter 2s fall 2 rise 2
    server o1 $HOST:$O1
    server o2 $HOST:$O2
    server o3 $HOST:$O3
CFG

proxy_cmd() {
    case $1 in
        loomgate|loomgate-noretry) echo "$JAVA -jar $JAR serve --no-watch --config $WORK/$1.yaml" ;;
        haproxy) echo "haproxy -db -f $WORK/haproxy.cfg" ;;
        *) die "unknown proxy '$1' (loomgate, loomgate-noretry, haproxy)" ;;
    esac
}
proxy_port() { [[ $1 == haproxy ]] && echo "$HA_PORT" || echo "$LG_PORT"; }

# ---- one proxy: fresh origins, start, warm up, measure with one origin killed at KILL_AT ---------------------------
ROWS=()
run_one() {
    local name=$1 port origins=() p pid out
    port=$(proxy_port "$name")
    for p in "$O1" "$O2" "$O3"; do
        $ON_LOAD_CORE "$WORK/backend" -addr "$HOST:$p" -latency "${LATENCY_MS}ms" > "$WORK/origin-$p.log" 2>&1 &
        origins+=($!); PIDS+=($!)
        wait_ready "http://$HOST:$p/hello" 10 "$!" || die "origin on $p did not start"
    done
    # shellcheck disable=SC2046
    $ON_PROXY_CORE $(proxy_cmd "$name") > "$WORK/$name.log" 2>&1 &
    pid=$!; PIDS+=($pid)
    wait_ready "http://$HOST:$port/hello" 60 "$pid" || die "$name did not start (see $WORK/$name.log)"
    if ((WARM > 0)); then
        $ON_LOAD_CORE wrk -t1 -c"$CONNS" -d"${WARM}s" "http://$HOST:$port/api/data" > /dev/null 2>&1
        sleep 3 # let the warm-up's connections close and the health checks settle
    fi
    out="$WORK/$name.wrk"
    $ON_LOAD_CORE wrk -t1 -c"$CONNS" -d"${DURATION}s" --timeout 5s --latency -s "$SHARED_BENCH/lib/report.lua" \
        "http://$HOST:$port/api/data" > "$out" 2>&1 &
    local wrk_pid=$!
    sleep "$KILL_AT"
    kill -KILL "${origins[2]}" 2>/dev/null # SIGKILL: its connections die with it, no goodbye
    wait "$wrk_pid"
    kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    kill -KILL "${origins[0]}" "${origins[1]}" 2>/dev/null; wait "${origins[@]}" 2>/dev/null
    local line
    line=$(grep '^BENCH' "$out") || die "wrk printed no result for $name (see $out)"
    ROWS+=("$name $line")
}

for name in $PROXIES; do
    echo "running $name: $CONNS connections, ${DURATION}s, origin 3 killed at ${KILL_AT}s" >&2
    run_one "$name"
done

# ---- the table --------------------------------------------------------------------------------------------------
field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<< "$2"; }
echo
echo "Failover: 3 origins (/api/data, ${LATENCY_MS} ms), origin 3 SIGKILLed ${KILL_AT} s into ${DURATION} s of wrk at" \
     "$CONNS connections$([[ $PIN == 1 ]] && echo ', proxy on core 0, origins and wrk on core 1')"
echo
echo "| proxy | requests/s | non-2xx | socket errors (connect/read/write/timeout) | p99 ms | max ms |"
echo "|---|---|---|---|---|---|"
for row in "${ROWS[@]}"; do
    name=${row%% *}
    req=$(field requests "$row"); dur=$(field duration_us "$row")
    p99=$(field p99_us "$row"); max=$(field max_us "$row"); status=$(field status "$row")
    c=$(field connect "$row"); r=$(field read "$row"); w=$(field write "$row"); t=$(field timeout "$row")
    awk -v n="$name" -v req="$req" -v dur="$dur" -v p99="$p99" -v max="$max" -v s="$status" \
        -v c="$c" -v r="$r" -v w="$w" -v t="$t" 'BEGIN {
        printf "| %s | %.0f | %d | %d (%d/%d/%d/%d) | %.1f | %.1f |\n", n, req / (dur / 1e6), s, c + r + w + t,
               c, r, w, t, p99 / 1000, max / 1000 }'
done
echo
echo "(logs and wrk output: $WORK)"
