#!/usr/bin/env bash
# W7's shape by hand, to study its occasional collapse (docs/journal/2026-11-27-session-24.md: the JIT compiling JSSE's
# handshake on the same core): the gateway pinned to core 0 with a GC log, the harness's Go origin (100 ms) and wrk on
# core 1; a 20 s /hello warm-up at 256 connections (and with HANDSHAKE_WARMUP=30s, 30 s of new connections, which
# compiles the handshake first), then REPS times: wrk 3 s at 2000 TLS connections (as run.sh's warm-up), 1 s pause,
# wrk 10 s at 2000 new connections (the measured run). Prints requests/s, the gateway's CPU ticks and the GC pauses
# of each measured run; the GC log is /tmp/tls-w7.gc.log, the gateway's log /tmp/tls-w7.gateway.log.
#
#   bench/tls-w7/run.sh                               # JSSE (bench/configs/gw-tls.yaml), 4 repetitions
#   CFG=bench/configs/gw-tls-conscrypt.yaml HEAP=-Xmx512m REPS="1 2" bench/tls-w7/run.sh
#   HANDSHAKE_WARMUP=30s bench/tls-w7/run.sh           # the handshake compiled before W7's burst: no collapse
#
# Needs one earlier ../shared/bench/run.sh with a TLS workload: its origin binary and certificate are reused
# (/tmp/loomgate-bench/bin/backend, /tmp/loomgate-bench/tls/). JAR= the gateway jar (default: the build's).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
cd "$ROOT"
CFG=${CFG:-bench/configs/gw-tls.yaml}
# shellcheck source=../lib/pinned.sh
source "$ROOT/bench/lib/pinned.sh"
taskset -c 0 "$JAVA" ${HEAP:--Xmx256m} -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -Xlog:gc:file=/tmp/tls-w7.gc.log \
    -jar "$JAR" serve --config "$CFG" > /tmp/tls-w7.gateway.log 2>&1 &
G=$!
pids+=("$G")
ready=0
for _ in $(seq 150); do
    if curl -sk -o /dev/null https://127.0.0.1:18081/hello; then ready=1; break; fi
    sleep 0.2
done
(( ready )) || { echo "the gateway did not answer; see /tmp/tls-w7.gateway.log" >&2; exit 1; }
taskset -c 1 wrk -t1 -c256 -d20s https://127.0.0.1:18081/hello > /dev/null
if [[ -n ${HANDSHAKE_WARMUP:-} ]]; then # new connections too, so the JIT has compiled the handshake before W7's burst
    taskset -c 1 wrk -t1 -c64 -d"$HANDSHAKE_WARMUP" -H 'Connection: close' https://127.0.0.1:18081/hello > /dev/null
fi
ticks() { awk '{ print $14 + $15 }' "/proc/$G/stat"; }
pauses() { grep -c Pause /tmp/tls-w7.gc.log || true; }
for rep in ${REPS:-1 2 3 4}; do
    taskset -c 1 wrk -t1 -c2000 -d3s --timeout 5s https://127.0.0.1:18081/api/data > /dev/null 2>&1 || true
    sleep 1
    g0=$(pauses); t0=$(ticks)
    out=$(taskset -c 1 wrk -t1 -c2000 -d10s --timeout 5s https://127.0.0.1:18081/api/data 2>&1 || true)
    t1=$(ticks); g1=$(pauses)
    echo "rep $rep: $(grep Requests/sec <<< "$out" | awk '{ print $2 }') req/s, gateway CPU $((t1 - t0)) ticks," \
        "GC pauses $((g1 - g0)) $(grep -E 'Socket errors' <<< "$out" || true)"
done
