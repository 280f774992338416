#!/usr/bin/env bash
# prof-w9.sh JAR LABEL: W9's shape (h2load -c200 -m10 /api/data over TLS h2, 100 ms origin), Conscrypt config,
# ports 42081/42080/42901, gateway on core 0, load+origin on core 1, niced. Warm WARM s, then D s async-profiler cpu.
set -uo pipefail
JAR=$1; LABEL=$2; D=${D:-20}; WARM=${WARM:-60}
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
OUT=/tmp/tlsrec/prof/$LABEL; rm -rf "$OUT"; mkdir -p "$OUT"
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java; JCMD=/usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd
export BENCH_TLS_CERT=/tmp/loomgate-bench/tls/cert.pem BENCH_TLS_KEY=/tmp/loomgate-bench/tls/key.pem
URL=https://127.0.0.1:42081/api/data
sed -e 's/18081/42081/g; s/19901/42901/g; s/18080/42080/g' $ROOT/bench/configs/gw-tls-conscrypt.yaml > "$OUT/gw.yaml"
nice taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:42080 -latency 100ms > "$OUT/origin.log" 2>&1 & BP=$!
for _ in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:42080/hello && break; sleep 0.2; done
nice taskset -c 0 $JAVA -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders ${JVM_EXTRA:-} -jar "$JAR" serve --config "$OUT/gw.yaml" > "$OUT/gw.log" 2>&1 & P=$!
trap 'kill $P $BP 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 300); do curl -sk -o /dev/null https://127.0.0.1:42081/hello && break; sleep 0.2; done
H() { timeout $(($1 + 60)) nice taskset -c 1 h2load -t1 -c200 -m10 -D$1 $URL 2>&1; }
for ((l = WARM; l > 0; l -= 10)); do H 10 > /dev/null; done
AP=/tmp/tlsw5/ap/linux-x64/libasyncProfiler.so
$JCMD $P JVMTI.agent_load $AP "\"start,event=cpu,interval=1000000\"" > /dev/null
H $D > $OUT/h2load-cpu.txt
$JCMD $P JVMTI.agent_load $AP "\"stop,file=$OUT/cpu.collapsed,collapsed\"" > /dev/null
$JCMD $P JVMTI.agent_load $AP "\"start,event=alloc,alloc=65536\"" > /dev/null
H $D > $OUT/h2load-alloc.txt
$JCMD $P JVMTI.agent_load $AP "\"stop,file=$OUT/alloc.collapsed,collapsed,total\"" > /dev/null
grep -E '^finished|^requests' $OUT/h2load-cpu.txt
echo "profile $OUT/cpu.collapsed $(awk '{ s += $NF } END { print s }' $OUT/cpu.collapsed) samples; load $(cut -d' ' -f1 /proc/loadavg)"
