#!/usr/bin/env bash
# histo.sh JAR LABEL [tls|h2c]: what a W9 request holds while it waits for its origin (s41 w9cold's histo.sh and
# threads.sh in one run, on ports of their own: 29881 -> origin 29880 with 100 ms latency, admin 29891). The launcher's
# memory flags (no AOT cache), gateway on core 0, h2load (-c200 -m10, /api/data) and origin on core 1. 20 s into 35 s
# of load: GC.class_histogram (live, after a full collection) and a thread dump; again after h2load ends. Over TLS
# (W9 proper) at load 20+ the JSSE handshakes took up to 7 s and few streams were open at the sample; h2c (W9's shape
# without TLS: the same per-request objects, no TLS state per connection) opens them all at once.
# histo-sum.py then divides what is live during and not after by the streams open.
set -u
JAR=$1; LABEL=$2; MODE=${3:-tls}
HERE=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd "$HERE/../../.." && pwd)
OUT=${OUTROOT:-/tmp/h2alloc/out}/w9-$LABEL; rm -rf "$OUT"; mkdir -p "$OUT"
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java; JCMD=/usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd
ulimit -n "$(ulimit -Hn)"
CFG=gw-tls.yaml; SCHEME=https; [[ $MODE == h2c ]] && CFG=gw-h2c.yaml && SCHEME=http
sed -e 's/18081/29881/; s/19901/29891/; s/18080/29880/' "$ROOT/bench/configs/$CFG" > "$OUT/gw.yaml"
export BENCH_TLS_CERT=/tmp/loomgate-bench/tls/cert.pem BENCH_TLS_KEY=/tmp/loomgate-bench/tls/key.pem
taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:29880 -latency 100ms > /dev/null 2>&1 & O=$!
taskset -c 0 $JAVA -XX:+ExitOnOutOfMemoryError -Xmx176m -Xms32m -XX:NewSize=16m -XX:MaxNewSize=16m -XX:+UseSerialGC \
    -XX:ReservedCodeCacheSize=64m -XX:MaxMetaspaceSize=128m -XX:+UseCompactObjectHeaders \
    -jar "$JAR" serve --config "$OUT/gw.yaml" > "$OUT/gw.log" 2>&1 & P=$!
trap 'kill $P $O 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 300); do curl -sk -o /dev/null -m 2 $SCHEME://127.0.0.1:29881/hello && break; sleep 0.2; done
curl -s -o /dev/null http://127.0.0.1:29880/hello || { echo "the origin did not start (port 29880 taken?)"; exit 1; }
nice -n 10 taskset -c 1 h2load -t1 -c200 -m10 -D35 $SCHEME://127.0.0.1:29881/api/data > "$OUT/h2load.txt" 2>&1 & L=$!
sleep 20
$JCMD $P GC.class_histogram > "$OUT/histo-during.txt" 2>&1
$JCMD $P Thread.dump_to_file -format=text "$OUT/threads-during.txt" > /dev/null 2>&1
wait $L
$JCMD $P GC.class_histogram > "$OUT/histo-after.txt" 2>&1
python3 "$HERE/histo-sum.py" "$OUT" | tee "$OUT/summary.txt"
