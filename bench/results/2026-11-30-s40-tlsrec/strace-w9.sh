#!/usr/bin/env bash
# strace-w9.sh JAR LABEL (trace beside, not in, the config directory: the gateway watches that directory): W9's shape at low scale, warmed, then strace -f over N requests (h2load -n) to classify reads.
set -uo pipefail
JAR=$1; LABEL=$2; N=${N:-20000}; WARM=${WARM:-40}
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
OUT=/tmp/tlsrec/strace/$LABEL; rm -rf "$OUT"; mkdir -p "$OUT"
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
export BENCH_TLS_CERT=/tmp/loomgate-bench/tls/cert.pem BENCH_TLS_KEY=/tmp/loomgate-bench/tls/key.pem
URL=https://127.0.0.1:43081/api/data
sed -e 's/18081/43081/g; s/19901/43901/g; s/18080/43080/g' $ROOT/bench/configs/gw-tls-conscrypt.yaml > "$OUT/gw.yaml"
nice taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:43080 -latency 100ms > "$OUT/origin.log" 2>&1 & BP=$!
for _ in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:43080/hello && break; sleep 0.2; done
nice taskset -c 0 $JAVA -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -jar "$JAR" serve --config "$OUT/gw.yaml" > "$OUT/gw.log" 2>&1 & P=$!
trap 'kill $P $BP 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 300); do curl -sk -o /dev/null https://127.0.0.1:43081/hello && break; sleep 0.2; done
for ((l = WARM; l > 0; l -= 10)); do timeout 70 nice taskset -c 1 h2load -t1 -c200 -m10 -D10 $URL > /dev/null 2>&1; done
strace -f -qq -e trace=read,write,epoll_ctl,futex -p $P -o $OUT.strace.txt & SP=$!
sleep 2
timeout 120 nice taskset -c 1 h2load -t1 -c50 -m10 -n$N $URL > $OUT/h2load.txt 2>&1
sleep 1; kill -INT $SP; wait $SP
grep -E '^finished|^requests' $OUT/h2load.txt
