#!/usr/bin/env bash
# Who makes the epoll transport's epoll_wait and futex calls per request (issue 40, session 53): one proxy, pinned as
# bench/syscalls pins it (proxy core 0, load and origin core 1), warmed, then a window in which perf records the
# epoll_wait and futex tracepoints with their arguments, return values and native stacks (perf script), and a
# summary per thread and kind: epoll_wait by timeout (0: a look, -1: the idle loop's wait, n: a bounded wait) and
# whether it found events; futex by op (WAIT, WAKE) and thread.
#
#   bench/epollwake/account.sh w2 [proxy]        # proxy: loomgate-epoll (default) or haproxy
#   JAR=/tmp/other.jar EPOLL_JVM_ARGS=-D... bench/epollwake/account.sh w8
# GAPS=1 (session 54): then 3 s of perf record on epoll_wait's returns, the gaps between polls that found events.
# Ports: GW_PORT (default 29681), ORIGIN_PORT (29680), ADMIN_PORT (29691). Output: /tmp/epollwake-account.$SHAPE.*
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
cd "$ROOT"
SHAPE=${1:?usage: bench/epollwake/account.sh w2|w8 [loomgate-epoll|haproxy]}
PROXY=${2:-loomgate-epoll}
GW_PORT=${GW_PORT:-29681} ORIGIN_PORT=${ORIGIN_PORT:-29680} ADMIN_PORT=${ADMIN_PORT:-29691}
export ORIGIN_PORT
OUT=/tmp/epollwake-account.$GW_PORT.$SHAPE.$PROXY
mkdir -p "$OUT.d"
case $SHAPE in
    w2) GW=bench/configs/gateway-bench.yaml HAP=haproxy-t1.cfg WARM=${WARM:-30} ;;
    w8) GW=bench/configs/gw-h2c.yaml HAP=haproxy-t1-h2c.cfg WARM=${WARM:-60} ;;
    *) echo "w2 or w8" >&2; exit 2 ;;
esac
URL=http://127.0.0.1:$GW_PORT
source "$ROOT/bench/lib/pinned.sh"
port() { sed -e "s/18081/$GW_PORT/g; s/18080/$ORIGIN_PORT/g; s/19901/$ADMIN_PORT/g" \
    -e "s|pidfile /tmp/loomgate-bench/|pidfile $OUT.d/|" "$1"; }
if [[ $PROXY == haproxy ]]; then
    port "$SHARED/peers/$HAP" > "$OUT.d/haproxy.cfg"
    taskset -c 0 haproxy -db -f "$OUT.d/haproxy.cfg" > "$OUT.log" 2>&1 &
else
    port "$GW" | sed 's/^server:$/server:\n  transport: epoll/' > "$OUT.d/gw.yaml"
    taskset -c 0 "$JAVA" -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders ${EPOLL_JVM_ARGS:-} -jar "$JAR" serve \
        --config "$OUT.d/gw.yaml" > "$OUT.log" 2>&1 &
fi
P=$!; pids+=("$P")
for _ in $(seq 300); do
    curl -s -o /dev/null "$URL/hello" 2>/dev/null && break
    curl -s --http2-prior-knowledge -o /dev/null "$URL/hello" 2>/dev/null && break
    sleep 0.2
done
load() {
    if [[ $SHAPE == w2 ]]; then taskset -c 1 wrk -t1 -c"${CONNS:-50}" -d"$1"s "$URL/hello" 2>&1 || true
    else timeout $(($1 + 60)) taskset -c 1 h2load -t1 -c100 -m10 -D"$1" "$URL/hello" 2>&1 || true; fi
}
requests() { if [[ $SHAPE == w2 ]]; then awk '/requests in/ { print $1 }' <<< "$1"; else awk '/^requests:/ { print $8 }' <<< "$1"; fi; }
for ((left = WARM; left > 0; left -= 10)); do load $((left < 10 ? left : 10)) > /dev/null; done
# the JVM's own names for its threads (comm is cut at 15 characters): nid -> name, from jcmd
{ "${JAVA%/java}/jcmd" "$P" Thread.print 2> /dev/null || true; } | sed -n 's/^"\([^"]*\)".* nid=\(0x[0-9a-f]*\|[0-9]*\) .*/\2 \1/p' > "$OUT.names"
# counted in the kernel per thread (cheap, unlike strace): epoll_wait all, with timeout 0, returning 0; futex wake
# and wait; context switches
perf stat --per-thread -x, -o "$OUT.perf" -p "$P" \
    -e syscalls:sys_enter_epoll_wait -e syscalls:sys_enter_epoll_wait --filter 'timeout == 0' \
    -e syscalls:sys_exit_epoll_wait --filter 'ret == 0' \
    -e syscalls:sys_enter_futex --filter 'op == 1 || op == 129 || op == 10 || op == 138' \
    -e syscalls:sys_enter_futex --filter 'op == 0 || op == 128 || op == 9 || op == 137' \
    -e context-switches &
stat=$!
cpu() { awk '{ print $14, $15 }' "/proc/$P/stat"; }
read -r u0 s0 < <(cpu)
out=$(load "${WINDOW:-15}")
read -r u1 s1 < <(cpu)
kill -INT "$stat"; wait "$stat" 2>/dev/null || true
n=$(requests "$out")
awk -v p="$PROXY $SHAPE ${EPOLL_JVM_ARGS:-}" -v n="$n" -v w="${WINDOW:-15}" -v u=$((u1 - u0)) -v s=$((s1 - s0)) \
    -v load="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN { printf "%s: %.0f req/s, CPU %.1f us/req (user %.1f, kernel %.1f), load %s\n",
        p, n / w, (u + s) * 10000 / n, u * 10000 / n, s * 10000 / n, load }' | tee "$OUT.summary"
python3 "$HERE/summarize.py" "$n" "$OUT.names" < "$OUT.perf" | tee -a "$OUT.summary"
if [[ -n ${GAPS:-} ]]; then # session 54: the gaps between polls that found events, a short window (perf record)
    perf record -q -e syscalls:sys_exit_epoll_wait -p "$P" -o "$OUT.gaps.data" 2> /dev/null &
    rec=$!
    load "${GAPS_WINDOW:-3}" > /dev/null
    kill -INT "$rec"; wait "$rec" 2>/dev/null || true
    perf script -i "$OUT.gaps.data" -F tid,time,trace 2> /dev/null | python3 "$HERE/gaps.py" | tee -a "$OUT.summary"
    rm -f "$OUT.gaps.data"
fi
if [[ -n ${STACKS:-} ]]; then # native stacks of the futex calls, a short window (perf record slows the proxy)
    perf record -q -g -e syscalls:sys_enter_futex -p "$P" -o "$OUT.data" 2> /dev/null &
    rec=$!
    load 3 > /dev/null
    kill -INT "$rec"; wait "$rec" 2>/dev/null || true
    perf script -i "$OUT.data" -F comm,tid,ip,sym 2> /dev/null > "$OUT.stacks"
fi
