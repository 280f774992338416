#!/usr/bin/env bash
# wait.sh JAR LABEL [h2c|tls]: the live bytes of exactly 2,000 streams all waiting for their origin. The launcher's memory
# flags (no AOT cache); gateway on core 0, origin (/api/data answered after 4 s) and h2load on core 1; ports 29981 ->
# 29980, admin 29991. Warm-up: W8's shape (/hello, answered at once, 100 x 10, 150,000 requests: the proxy path
# compiled). Then h2load -c200 -m10 -n2000 /api/data: every stream open at once, each parked on its origin's answer;
# 2 s in, a thread dump and GC.class_histogram (a full collection: what a young one would have to copy of them),
# again after the 2,000 answers. Over TLS at load 15+ the 200 handshakes can take 4 s: LATENCY=8s SAMPLE_AT=6. ours.py / perexchange.py / live-sum.py divide by the Http2Stream instances.
set -u
JAR=$1; LABEL=$2; MODE=${3:-h2c}
HERE=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd "$HERE/../../.." && pwd)
OUT=${OUTROOT:-/tmp/livestream/out}/wait$MODE-$LABEL-$(date +%H%M%S); mkdir -p "$OUT"
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java; JCMD=/usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd
ulimit -n "$(ulimit -Hn)"
CFG=gw-h2c.yaml; SCHEME=http; [[ $MODE == tls ]] && CFG=gw-tls.yaml && SCHEME=https
sed -e 's/18081/29981/; s/19901/29991/; s/18080/29980/' "$ROOT/bench/configs/$CFG" > "$OUT/gw.yaml"
export BENCH_TLS_CERT=/tmp/loomgate-bench/tls/cert.pem BENCH_TLS_KEY=/tmp/loomgate-bench/tls/key.pem
taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:29980 -latency ${LATENCY:-4s} > /dev/null 2>&1 & O=$!
taskset -c 0 $JAVA -XX:+ExitOnOutOfMemoryError -Xmx176m -Xms32m -XX:NewSize=16m -XX:MaxNewSize=16m -XX:+UseSerialGC \
    -XX:ReservedCodeCacheSize=64m -XX:MaxMetaspaceSize=128m -XX:+UseCompactObjectHeaders \
    "-Xlog:gc*:file=$OUT/gc.log:uptime,tags" \
    -jar "$JAR" serve --config "$OUT/gw.yaml" > "$OUT/gw.log" 2>&1 & P=$!
trap 'kill $P $O 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 300); do curl -sk -o /dev/null -m 2 $SCHEME://127.0.0.1:29981/hello && break; sleep 0.2; done
curl -s -o /dev/null http://127.0.0.1:29980/hello || { echo "the origin did not start (port 29980 taken?)"; exit 1; }
uptime > "$OUT/load.txt"
nice -n 10 taskset -c 1 h2load -t1 -c100 -m10 -n150000 $SCHEME://127.0.0.1:29981/hello > "$OUT/h2load-warm.txt" 2>&1
nice -n 10 taskset -c 1 h2load -t1 -c200 -m10 -n2000 $SCHEME://127.0.0.1:29981/api/data > "$OUT/h2load.txt" 2>&1 & L=$!
sleep ${SAMPLE_AT:-2}
$JCMD $P Thread.dump_to_file -format=text "$OUT/threads-during.txt" > /dev/null 2>&1
$JCMD $P GC.class_histogram > "$OUT/histo-during.txt" 2>&1
[[ -n ${HEAPDUMP:-} ]] && $JCMD $P GC.heap_dump "$OUT/heap.hprof" > /dev/null 2>&1  # chunks.py reads the StackChunks
wait $L
$JCMD $P GC.class_histogram > "$OUT/histo-after.txt" 2>&1
uptime >> "$OUT/load.txt"
python3 "$HERE/ours.py" "$OUT" | head -1 | tee "$OUT/summary.txt"
echo "$OUT"
