#!/usr/bin/env bash
# The TLS workloads W5-W7 and W9 of ../shared/bench/run.sh once the JVM has compiled the handshake: run.sh's warm-up
# (/hello over 256 keep-alive connections) makes only 256 handshakes per round, so its W6 and W7 meet a gateway whose
# C2 compiler is still compiling JSSE's handshake on the same pinned core (docs/journal/2026-11-27-session-24.md). Here
# every proxy gets the same longer warm-up, new connections included, and then the same workloads, with the same
# tools and pinning as run.sh: the proxy on core 0, wrk (h2load for W9, h2 by ALPN) and the harness's Go origin
# (100 ms /api/data) on core 1, in run.sh's order (W5, W6, W9, W7).
#
#   bench/tls-steady/run.sh                          # loomgate (bench/configs/gw-tls.yaml) and haproxy-t1, interleaved, 2 rounds
#   PROXIES="loomgate-conscrypt haproxy" ROUNDS=1 bench/tls-steady/run.sh
#   RESUME=1 WORKLOADS=W6 bench/tls-steady/run.sh    # W6 with session resumption on in every proxy (wrk resumes)
#   PROXIES="haproxy haproxy-fwd loomgate-conscrypt" WORKLOADS=W5 bench/tls-steady/run.sh   # haproxy-fwd: HAProxy
#       adding the fields the gateway's defaults add (bench/configs/haproxy-t1-tls-forwarded.cfg), like for like
#
# Prints per proxy and workload: requests/s (W6: handshakes/s), the proxy's CPU µs per request (whole process, JIT
# included), wrk's timeouts, for Loomgate the C2 compiler thread's CPU in the measured window (0 once compiled), and
# the origin's CPU µs per request (it shares core 1 with the load tool, which bounds W5's rate).
# Needs one earlier ../shared/bench/run.sh with a TLS workload (its origin binary and certificate are reused from
# /tmp/loomgate-bench), haproxy, wrk and h2load. JAR= the gateway jar (default: the build's).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
cd "$ROOT"
WARM_NEW=${WARM_NEW:-60s}
WORKLOADS=${WORKLOADS:-W5 W6 W9 W7}
# RESUME=1: every proxy lets clients resume TLS sessions (the gateway's default, HAProxy's default tickets and cache),
# so W6 measures resumed handshakes; the configs are the usual ones with resumption turned back on.
CONF_DIR=/tmp/tls-steady-conf
mkdir -p "$CONF_DIR"
for f in gw-tls gw-tls-conscrypt; do
    if [[ ${RESUME:-0} == 1 ]]; then
        sed 's/session-resumption: false/session-resumption: true/' "bench/configs/$f.yaml" > "$CONF_DIR/$f.yaml"
    else
        cp "bench/configs/$f.yaml" "$CONF_DIR/$f.yaml"
    fi
done
URL=https://127.0.0.1:18081
# shellcheck source=../lib/pinned.sh
source "$ROOT/bench/lib/pinned.sh"

start_proxy() {
    case $1 in
        loomgate) taskset -c 0 "$JAVA" -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -jar "$JAR" serve \
                      --config "$CONF_DIR/gw-tls.yaml" > /tmp/tls-steady.$1.log 2>&1 & ;;
        loomgate-conscrypt) taskset -c 0 "$JAVA" -Xmx512m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -jar "$JAR" \
                      serve --config "$CONF_DIR/gw-tls-conscrypt.yaml" > /tmp/tls-steady.$1.log 2>&1 & ;;
        haproxy) if [[ ${RESUME:-0} == 1 ]]; then
                     sed -e 's/ no-tls-tickets//' -e '/tune.ssl.cachesize 0/d' "$SHARED/peers/haproxy-t1-tls.cfg" \
                         > "$CONF_DIR/haproxy.cfg"
                 else
                     cp "$SHARED/peers/haproxy-t1-tls.cfg" "$CONF_DIR/haproxy.cfg"
                 fi
                 taskset -c 0 haproxy -db -f "$CONF_DIR/haproxy.cfg" > /tmp/tls-steady.$1.log 2>&1 & ;;
        haproxy-fwd) # haproxy-t1-tls.cfg plus the gateway's forwarding fields, Via and traceparent (like for like)
                 if [[ ${RESUME:-0} == 1 ]]; then
                     sed -e 's/ no-tls-tickets//' -e '/tune.ssl.cachesize 0/d' bench/configs/haproxy-t1-tls-forwarded.cfg \
                         > "$CONF_DIR/haproxy-fwd.cfg"
                 else
                     cp bench/configs/haproxy-t1-tls-forwarded.cfg "$CONF_DIR/haproxy-fwd.cfg"
                 fi
                 taskset -c 0 haproxy -db -f "$CONF_DIR/haproxy-fwd.cfg" > /tmp/tls-steady.$1.log 2>&1 & ;;
        *) echo "unknown proxy $1" >&2; exit 2 ;;
    esac
    P=$!
    pids+=("$P")
    for _ in $(seq 300); do
        curl -sk -o /dev/null "$URL/hello" && return 0
        sleep 0.2
    done
    echo "$1 did not answer; see /tmp/tls-steady.$1.log" >&2
    exit 1
}
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
row() { # name rps errors t0 t1 c0 c1 o0 o1: one result line; CPU per request (the proxy's, the origin's) and C2's
    # seconds from the tick counts. The origin shares core 1 with the load tool, which bounds W5's rate: what it spends
    # per request (more when the proxy forwards more fields) moves the requests/s the proxy is credited with.
    local per='BEGIN { if (r > 0) printf "%.1f", t * 10000 / (r * 10); else print "-" }'
    printf '  %-3s %9s req/s  %8s CPU us/req  %-14s  C2 %5.1f s  origin %6s us/req\n' "$1" "$2" \
        "$(awk -v t=$(($5 - $4)) -v r="$2" "$per")" \
        "$3" "$(awk -v c=$(($7 - $6)) 'BEGIN { printf "%.1f", c / 100 }')" "$(awk -v t=$(($9 - $8)) -v r="$2" "$per")"
}

measure() { # name proxy_pid wrk-args...: a 3 s warm-up run, then 10 s measured, as run.sh
    local name=$1 pid=$2 out t0 t1 c0 c1 o0 o1 timeouts
    shift 2
    taskset -c 1 wrk -t1 -d3s --timeout 5s "$@" > /dev/null 2>&1 || true
    t0=$(ticks "$pid"); c0=$(c2_ticks "$pid"); o0=$(ticks "${pids[0]}")
    out=$(taskset -c 1 wrk -t1 -d10s --timeout 5s "$@" 2>&1 || true)
    t1=$(ticks "$pid"); c1=$(c2_ticks "$pid"); o1=$(ticks "${pids[0]}")
    timeouts=$(sed -n 's/.*timeout \([0-9]*\).*/\1/p' <<< "$out")
    row "$name" "$(awk '/Requests\/sec/ { print $2 }' <<< "$out")" "timeouts ${timeouts:-0}" "$t0" "$t1" "$c0" "$c1" \
        "$o0" "$o1"
}

measure_h2() { # name proxy_pid clients streams path: h2load by ALPN h2, 3 s warm-up then 10 s, as run.sh's W9
    # Under timeout, as harness-phases: h2load's timing mode never stops a client whose TLS handshake completes after
    # its duration ended (it goes on sending requests), so on a loaded machine it may never end (stop 38).
    local name=$1 pid=$2 out t0 t1 c0 c1 o0 o1
    timeout 63 taskset -c 1 h2load -t1 -c"$3" -m"$4" -D3 "$URL$5" > /dev/null 2>&1 || true
    sleep 1
    t0=$(ticks "$pid"); c0=$(c2_ticks "$pid"); o0=$(ticks "${pids[0]}")
    out=$(timeout 70 taskset -c 1 h2load -t1 -c"$3" -m"$4" -D10 "$URL$5" 2>&1 || true)
    t1=$(ticks "$pid"); c1=$(c2_ticks "$pid"); o1=$(ticks "${pids[0]}")
    row "$name" "$(sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p' <<< "$out")" \
        "$(grep -o '[0-9]* failed' <<< "$out" | head -1)" "$t0" "$t1" "$c0" "$c1" "$o0" "$o1"
}

resumed() { # proxy: whether a second OpenSSL handshake resumes the first's session (run.sh's probe), said once
    local f=$CONF_DIR/probe.session
    rm -f "$f"
    # a request read to the end, so a TLS 1.3 ticket (sent after the handshake) reaches the session file
    printf 'GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' |
        timeout 10 openssl s_client -connect 127.0.0.1:18081 -sess_out "$f" -ign_eof > /dev/null 2>&1 || true
    if [[ -s $f ]] && timeout 10 openssl s_client -connect 127.0.0.1:18081 -sess_in "$f" < /dev/null 2>/dev/null |
            grep -q '^Reused,'; then
        echo "  $1: session resumption on"
    else
        echo "  $1: session resumption off"
    fi
}

for round in $(seq "${ROUNDS:-2}"); do
    for proxy in ${PROXIES:-loomgate haproxy}; do
        start_proxy "$proxy"
        echo "round $round, $proxy (warm-up: 20 s /hello at 256 connections, $WARM_NEW of new connections at 64)"
        taskset -c 1 wrk -t1 -c256 -d20s "$URL/hello" > /dev/null
        taskset -c 1 wrk -t1 -c64 -d"$WARM_NEW" -H 'Connection: close' "$URL/hello" > /dev/null
        resumed "$proxy"
        for w in $WORKLOADS; do
            case $w in
                W5) measure W5 "$P" -c256 "$URL/hello" ;;
                W6) measure W6 "$P" -c64 -H 'Connection: close' "$URL/hello" ;;
                W9) measure_h2 W9 "$P" 200 10 /api/data ;;
                W7) measure W7 "$P" -c2000 "$URL/api/data" ;;
            esac
        done
        kill "$P"; wait "$P" 2>/dev/null || true
        sleep 2
    done
done
