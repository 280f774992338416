#!/usr/bin/env bash
# large-h2.sh JAR LABEL [PATH]: h2 over TLS (Conscrypt config), h2load -c10 -m4 PATH (default /bytes/262144),
# ports 45081/45080/45901, warm WARM s, then D s counted: write system calls per request (perf syscall tracepoints).
set -uo pipefail
JAR=$1; LABEL=$2; P_=${3:-/bytes/262144}; D=${D:-10}; WARM=${WARM:-20}
ROOT=$(cd "$(dirname "$0")/../../.." && pwd); OUT=/tmp/tlsrec/large/$LABEL; rm -rf "$OUT"; mkdir -p "$OUT"
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
export BENCH_TLS_CERT=/tmp/loomgate-bench/tls/cert.pem BENCH_TLS_KEY=/tmp/loomgate-bench/tls/key.pem
URL=https://127.0.0.1:45081$P_
sed -e 's/18081/45081/g; s/19901/45901/g; s/18080/45080/g' $ROOT/bench/configs/gw-tls-conscrypt.yaml > "$OUT/gw.yaml"
nice taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:45080 -latency 100ms > "$OUT/origin.log" 2>&1 & BP=$!
for _ in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:45080/hello && break; sleep 0.2; done
nice taskset -c 0 $JAVA -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -jar "$JAR" serve --config "$OUT/gw.yaml" > "$OUT/gw.log" 2>&1 & P=$!
trap 'kill $P $BP 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 300); do curl -sk -o /dev/null https://127.0.0.1:45081/hello && break; sleep 0.2; done
H() { timeout $(($1 + 60)) nice taskset -c 1 h2load -t1 -c10 -m4 -D$1 $URL 2>&1; }
H $WARM > /dev/null
perf stat -x, -e syscalls:sys_enter_write,syscalls:sys_enter_writev,syscalls:sys_enter_read -p $P -o $OUT/perf.csv & PP=$!
out=$(H $D)
kill -INT $PP; wait $PP 2>/dev/null
n=$(awk '/^requests:/ { print $8 }' <<< "$out")
awk -F, -v n="$n" -v l="$LABEL" '$1 + 0 > 0 { sub("syscalls:sys_enter_", "", $3); line = line sprintf(" %s %.2f", $3, $1 / n) } END { printf "%s: %d requests; per request:%s\n", l, n, line }' $OUT/perf.csv
