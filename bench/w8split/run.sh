#!/usr/bin/env bash
# What the gateway spends per second rather than per request at W8 (issue 39, session 55): one proxy, pinned as
# bench/fixedrate pins it (proxy core 0, h2load and the Go origin core 1), started fresh per rate, warmed at that rate,
# then a counted window in which the kernel counts every system call by name and thread (`perf stat --per-thread -e
# 'syscalls:sys_enter_*'`, plus context switches), /proc/PID/task/*/stat gives each thread's CPU ticks before and after,
# and (JVM only) jcmd's PerfCounter.print gives GC, compilation and safepoint counts before and after. Rate 0: the
# proxy idle (started, one warm-up at WARM_RATE for WARM s, then nothing for the window).
#
#   bench/w8split/run.sh                          # loomgate (jdk), RATES="0 5000 10000"
#   PROXY=haproxy RATES="5000 10000" bench/w8split/run.sh
#   PROXY=loomgate-epoll JAR=/tmp/x.jar JVM_ARGS=-D... bench/w8split/run.sh
# Output: one summary per rate on stdout (python3 bench/w8split/split.py), raw files in OUT (default /tmp/w8split).
# Ports: GW_PORT 29761, ORIGIN_PORT 29760, ADMIN_PORT 29771.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
cd "$ROOT"
PROXY=${PROXY:-loomgate} RATES=${RATES:-"0 5000 10000"} WARM=${WARM:-30} WINDOW=${WINDOW:-30} WARM_RATE=${WARM_RATE:-5000}
GW_PORT=${GW_PORT:-29761} ORIGIN_PORT=${ORIGIN_PORT:-29760} ADMIN_PORT=${ADMIN_PORT:-29771}
export ORIGIN_PORT
OUT=${OUT:-/tmp/w8split}
mkdir -p "$OUT"
URL=http://127.0.0.1:$GW_PORT/hello
source "$ROOT/bench/lib/pinned.sh"
port() { sed -e "s/18081/$GW_PORT/g; s/18080/$ORIGIN_PORT/g; s/19901/$ADMIN_PORT/g" \
    -e "s|pidfile /tmp/loomgate-bench/|pidfile $OUT/|" "$1"; }
load() { # rate seconds
    local rps
    rps=$(awk -v r="$1" 'BEGIN { printf "%g", r / 100 }')
    timeout $(($2 + 60)) taskset -c 1 h2load -t1 -c100 -m10 --rps="$rps" -D"$2" "$URL" 2>&1 || true
}
jvm_counters() { # pid: GC, compilation and safepoint counters, "name=value" lines
    "${JAVA%/java}/jcmd" "$1" PerfCounter.print 2> /dev/null | grep -E \
        '^(sun\.gc\.collector\.[0-9]\.(invocations|time)|sun\.ci\.(totalCompiles|totalTime)|sun\.rt\.safepoints|sun\.rt\.safepointTime|sun\.os\.hrt\.frequency|java\.threads\.live)=' || true
}
threads() { # pid: "tid comm utime stime runtime-ns" per thread (utime, stime: the tick's samples; runtime: schedstat's,
    local t    # exact: with CONFIG_TICK_CPU_ACCOUNTING a thread that wakes on a timer is sampled with a bias)
    for t in /proc/"$1"/task/*; do
        awk -v tid="${t##*/}" -v comm="$(tr ' ' _ < "$t/comm" 2>/dev/null)" -v rt="$(cut -d' ' -f1 "$t/schedstat" 2>/dev/null)" \
            '{ print tid, comm, $14, $15, (rt == "" ? 0 : rt) }' "$t/stat" 2>/dev/null || true
    done
}
for rate in $RATES; do
    tag=$PROXY.$rate
    case $PROXY in
        haproxy) port "$SHARED/peers/haproxy-t1-h2c.cfg" > "$OUT/haproxy.cfg"
            taskset -c 0 haproxy -db -f "$OUT/haproxy.cfg" > "$OUT/$tag.log" 2>&1 & ;;
        loomgate) port bench/configs/gw-h2c.yaml > "$OUT/gw.yaml"
            taskset -c 0 "$JAVA" -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders ${JVM_ARGS:-} -jar "$JAR" serve \
                --config "$OUT/gw.yaml" > "$OUT/$tag.log" 2>&1 & ;;
        loomgate-epoll) port bench/configs/gw-h2c.yaml | sed 's/^server:$/server:\n  transport: epoll/' > "$OUT/gw.yaml"
            taskset -c 0 "$JAVA" -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders ${JVM_ARGS:-} -jar "$JAR" serve \
                --config "$OUT/gw.yaml" > "$OUT/$tag.log" 2>&1 & ;;
    esac
    P=$!; pids+=("$P")
    for _ in $(seq 300); do
        curl -s --http2-prior-knowledge -o /dev/null "$URL" 2>/dev/null && break
        sleep 0.2
    done
    load "$([[ $rate == 0 ]] && echo "$WARM_RATE" || echo "$rate")" "$WARM" > /dev/null
    [[ $rate == 0 ]] && sleep 5 # the load's connections gone
    if [[ $PROXY != haproxy ]]; then
        { "${JAVA%/java}/jcmd" "$P" Thread.print 2> /dev/null || true; } |
            sed -n 's/^"\([^"]*\)".* nid=\(0x[0-9a-f]*\|[0-9]*\) .*/\2 \1/p' > "$OUT/$tag.names"
        jvm_counters "$P" > "$OUT/$tag.jvm0"
    else : > "$OUT/$tag.names"; fi
    threads "$P" > "$OUT/$tag.threads0"
    perf stat --per-thread -x, -o "$OUT/$tag.perf" -p "$P" -e 'syscalls:sys_enter_*' -e context-switches 2> /dev/null &
    stat=$!
    sleep 0.5 # perf attached
    t0=$(date +%s.%N)
    if [[ $rate == 0 ]]; then sleep "$WINDOW"; out="requests: 0 total, 0 started, 0 done"; else out=$(load "$rate" "$WINDOW"); fi
    t1=$(date +%s.%N)
    kill -INT "$stat"; wait "$stat" 2>/dev/null || true
    threads "$P" > "$OUT/$tag.threads1"
    [[ $PROXY != haproxy ]] && jvm_counters "$P" > "$OUT/$tag.jvm1"
    echo "$out" > "$OUT/$tag.h2load"
    n=$(awk '/^requests:/ { print $8 }' <<< "$out")
    python3 "$HERE/split.py" "$OUT/$tag" "${n:-0}" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
        "$PROXY rate $rate load $(cut -d' ' -f1 /proc/loadavg) $(date -u +%T)" | tee "$OUT/$tag.summary"
    kill "$P"; wait "$P" 2>/dev/null || true
    sleep 2
done
