#!/usr/bin/env bash
# live.sh JAR LABEL w9h2c|w9tls|w8 [N]: what an in-flight stream keeps alive across a young collection.
# The launcher's memory flags (no AOT cache) plus -Xlog:gc*,gc+age=trace; gateway on core 0, origin and h2load on core 1.
# Ports 29981 -> origin 29980 (100 ms /api/data), admin 29991.
#  1. warm-up: h2load -n N/2;  2. counted: h2load -n N (the GC log between two VM.uptime marks: young collections,
#     bytes surviving (survivor + promoted) per collection, pauses);  3. sampled: h2load for 25 s, 12 s in
#     GC.class_histogram and Thread.dump_to_file, then again after the load; live-sum.py divides.
set -u
JAR=$1; LABEL=$2; MODE=$3; N=${4:-100000}
HERE=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd "$HERE/../../.." && pwd)
OUT=${OUTROOT:-/tmp/livestream/out}/$MODE-$LABEL-$(date +%H%M%S); mkdir -p "$OUT"
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java; JCMD=/usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd
ulimit -n "$(ulimit -Hn)"
case $MODE in
  w9tls) CFG=gw-tls.yaml; SCHEME=https; C=200; PATHQ=/api/data ;;
  w9h2c) CFG=gw-h2c.yaml; SCHEME=http; C=200; PATHQ=/api/data ;;
  w8)    CFG=gw-h2c.yaml; SCHEME=http; C=100; PATHQ=/hello ;;
esac
sed -e 's/18081/29981/; s/19901/29991/; s/18080/29980/' "$ROOT/bench/configs/$CFG" > "$OUT/gw.yaml"
export BENCH_TLS_CERT=/tmp/loomgate-bench/tls/cert.pem BENCH_TLS_KEY=/tmp/loomgate-bench/tls/key.pem
taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:29980 -latency 100ms > /dev/null 2>&1 & O=$!
taskset -c 0 $JAVA -XX:+ExitOnOutOfMemoryError -Xmx176m -Xms32m -XX:NewSize=16m -XX:MaxNewSize=16m -XX:+UseSerialGC \
    -XX:ReservedCodeCacheSize=64m -XX:MaxMetaspaceSize=128m -XX:+UseCompactObjectHeaders \
    "-Xlog:gc*,gc+age=trace:file=$OUT/gc.log:uptime,tags" \
    -jar "$JAR" serve --config "$OUT/gw.yaml" > "$OUT/gw.log" 2>&1 & P=$!
trap 'kill $P $O 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 300); do curl -sk -o /dev/null -m 2 --http2-prior-knowledge $SCHEME://127.0.0.1:29981/hello 2>/dev/null && break; curl -sk -o /dev/null -m 2 $SCHEME://127.0.0.1:29981/hello && break; sleep 0.2; done
curl -s -o /dev/null http://127.0.0.1:29980/hello || { echo "the origin did not start (port 29980 taken?)"; exit 1; }
uptime > "$OUT/load.txt"
nice -n 10 taskset -c 1 h2load -t1 -c$C -m10 -n$((N/2)) $SCHEME://127.0.0.1:29981$PATHQ > "$OUT/h2load-warm.txt" 2>&1
$JCMD $P VM.uptime | tail -1 > "$OUT/mark-start.txt"
nice -n 10 taskset -c 1 h2load -t1 -c$C -m10 -n$N $SCHEME://127.0.0.1:29981$PATHQ > "$OUT/h2load.txt" 2>&1
$JCMD $P VM.uptime | tail -1 > "$OUT/mark-end.txt"
uptime >> "$OUT/load.txt"
nice -n 10 taskset -c 1 h2load -t1 -c$C -m10 -D25 $SCHEME://127.0.0.1:29981$PATHQ > "$OUT/h2load-sample.txt" 2>&1 & L=$!
sleep 12
$JCMD $P Thread.dump_to_file -format=text "$OUT/threads-during.txt" > /dev/null 2>&1
$JCMD $P GC.class_histogram > "$OUT/histo-during.txt" 2>&1
wait $L
sleep 1
$JCMD $P GC.class_histogram > "$OUT/histo-after.txt" 2>&1
uptime >> "$OUT/load.txt"
python3 "$HERE/live-sum.py" "$OUT" | tee "$OUT/summary.txt"
echo "$OUT"
