#!/usr/bin/env bash
# W9 (SHAPE=w9, the default) or W8 (SHAPE=w8) as ../shared/bench/run.sh's h2_run runs it, after its warm-up (W9: the
# TLS family's wrk rounds, HTTP/1.1, /hello, 256 connections; W8: the h2c family's h2load rounds at W8's shape;
# WARM_ROUNDS of 5 s): h2load for 3 s, a 1-second sleep, then the measured h2load run (DURATION s), with the
# gateway started by this checkout's ./loomgate (its AOT cache) and the JVM's deoptimisation and compilation logs
# timed, so that the traps at the 3-s run's end and the compilations in the window can be told apart.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd "$HERE/../../.." && pwd)
SHAPE=${SHAPE:-w9}
OUT=$HERE/runs/harness-$SHAPE-${1:-run}; rm -rf "$OUT"; mkdir -p "$OUT"
O=29780; P=29781; A=29782
export BENCH_TLS_CERT=/tmp/loomgate-bench/tls/cert.pem BENCH_TLS_KEY=/tmp/loomgate-bench/tls/key.pem
if [[ $SHAPE == w8 ]]; then CFG=gw-h2c.yaml BASE=http://127.0.0.1:$P LAT=0 C=100 PATHQ=/hello
else CFG=gw-tls-conscrypt.yaml BASE=https://127.0.0.1:$P LAT=100ms C=200 PATHQ=/api/data; fi
sed -e "s/18081/$P/; s/19901/$A/; s/18080/$O/" "$ROOT/bench/configs/$CFG" > "$OUT/gw.yaml"
pids=(); trap 'for p in "${pids[@]}"; do kill $p 2>/dev/null; done; wait 2>/dev/null' EXIT
ulimit -n "$(ulimit -Hn)"
nice -n 10 taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:$O -latency $LAT >/dev/null 2>&1 & pids+=($!)
JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 LOOMGATE_JAVA_OPTS="-Xlog:deoptimization=debug:file=$OUT/deopt.log:uptime -XX:+PrintCompilation" \
    nice -n 5 taskset -c 0 "$ROOT/loomgate" serve --config "$OUT/gw.yaml" > "$OUT/gw.log" 2>&1 & GW=$!; pids+=($GW)
for i in $(seq 300); do curl -sk -o /dev/null $BASE/hello && break; curl -s --http2-prior-knowledge -o /dev/null $BASE/hello && break; sleep 0.2; done
up() { awk '{ print $1 }' /proc/uptime; }
start=$(awk -v p=$GW '{ print $22 }' /proc/$GW/stat) # JVM start, in clock ticks since boot
echo "jvm_start_s $(awk -v s=$start 'BEGIN { print s / 100 }')" > "$OUT/phases.txt"
for r in $(seq ${WARM_ROUNDS:-3}); do
    if [[ $SHAPE == w8 ]]; then timeout 65 nice -n 10 taskset -c 1 h2load -t1 -c100 -m10 -D5 $BASE/hello > /dev/null 2>&1
    else nice -n 10 taskset -c 1 wrk -t1 -c256 -d5s $BASE/hello > /dev/null 2>&1; fi
done
echo "h2warm_begin $(up)" >> "$OUT/phases.txt"
timeout 63 nice -n 10 taskset -c 1 h2load -t1 -c$C -m10 -D3 $BASE$PATHQ > "$OUT/h2warm.txt" 2>&1
echo "h2warm_end $(up)" >> "$OUT/phases.txt"
sleep 1
u0=$(awk '{ print $14 + $15 }' /proc/$GW/stat)
echo "window_begin $(up)" >> "$OUT/phases.txt"
timeout 80 nice -n 10 taskset -c 1 h2load -t1 -c$C -m10 -D${DURATION:-15} $BASE$PATHQ > "$OUT/window.txt" 2>&1
echo "window_end $(up)" >> "$OUT/phases.txt"
u1=$(awk '{ print $14 + $15 }' /proc/$GW/stat)
n=$(awk '/^requests:/ { print $8 }' "$OUT/window.txt")
echo "window: $n requests, CPU $(awk -v u=$((u1 - u0)) -v n=$n 'BEGIN { printf "%.1f", u * 10000 / n }') us/request, load $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$OUT/phases.txt"
