#!/usr/bin/env bash
# W8's shape (h2c, h2load -t1 -c100 -m10 /hello, instant Go origin) or W9's (SHAPE=w9: TLS with Conscrypt), with
# async-profiler's CPU sampling on the gateway attached after a warm-up (the JIT warm): bench/alloc's configs and
# pinning (gateway core 0, load and origin core 1, niced). Usage: cpuprof.sh JAR OUTDIR [w8|w9]
set -uo pipefail
JAR=${1:?jar}; OUT=${2:?outdir}; SHAPE=${3:-w8}; mkdir -p "$OUT"
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
AP=${AP:-/tmp/h2cpu-alloc/ap/linux-x64/libasyncProfiler.so}
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java; JCMD=/usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd
O=29770; P=29771; A=29772
CFG=gw-h2c.yaml; URL=http://127.0.0.1:$P/hello
if [[ $SHAPE == w9 ]]; then
    CFG=gw-tls-conscrypt.yaml; URL=https://127.0.0.1:$P/hello
    export BENCH_TLS_CERT=/tmp/h2cpu-alloc/certs/cert.pem BENCH_TLS_KEY=/tmp/h2cpu-alloc/certs/key.pem
fi
sed -e "s/18081/$P/; s/19901/$A/; s/18080/$O/" "$ROOT/bench/configs/$CFG" > "$OUT/gw.yaml"
pids=()
trap 'for p in "${pids[@]}"; do kill $p 2>/dev/null; done; wait 2>/dev/null' EXIT
nice -n 10 taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:$O -latency 0 >/dev/null 2>&1 & pids+=($!)
taskset -c 0 $JAVA -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -jar "$JAR" serve --config "$OUT/gw.yaml" > "$OUT/gw.log" 2>&1 & GW=$!; pids+=($GW)
for i in $(seq 150); do curl -sk -o /dev/null "$URL" && break; sleep 0.2; done
timeout 100 nice -n 10 taskset -c 1 h2load -t1 -c100 -m10 -D${WARM:-30} "$URL" > "$OUT/warm.txt" 2>&1
$JCMD $GW JVMTI.agent_load $AP "\"start,event=${EVENT:-cpu},interval=${INTERVAL:-500us}\"" > "$OUT/jcmd-start.txt" 2>&1
timeout 100 nice -n 10 taskset -c 1 h2load -t1 -c100 -m10 -D15 "$URL" > "$OUT/load.txt" 2>&1
$JCMD $GW JVMTI.agent_load $AP "\"stop,file=$OUT/cpu.collapsed,collapsed\"" > "$OUT/jcmd-stop.txt" 2>&1
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"; grep -E "^finished|requests:" "$OUT/load.txt"
