#!/usr/bin/env bash
# wait2.sh JAR LABEL [h2c|tls]: s48's wait.sh (2,000 streams parked on an origin that answers after 4 s, histogram 2 s in)
# plus, at the sample: a JSON thread dump (frames per waiting thread), Compiler.codelist (which of those methods are
# compiled, at which tier), a heap dump read by chunks.py (each thread's chunks: capacity and words in use), and a
# JFR recording of the origin-wait phase only with the continuation freeze events (interpreted frames and bytes per
# freeze, with the freezing stack; JFR=1, though JDK 25 product builds emit none of them). SA=1: ChunkFrames.java's
# walk of every chunk's physical frames. WARM_W9=1: warm up in W9's shape (origin 100 ms, -c200 -m10 /api/data,
# WARM requests, default 100,000) instead of W8's, so the measured waits are not the first parks the JIT sees.
# STEADY=1 SAMPLE_AT=8: W9 itself (origin 100 ms throughout; W9 warm-up, then 20 s of W9 sampled mid-run). EXTRA="flags" adds JVM flags.
set -u
JAR=$1; LABEL=$2; MODE=${3:-h2c}
HERE=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd "$HERE/../../.." && pwd)
OUT=${OUTROOT:-/tmp/sc/out}/wait$MODE-$LABEL-$(date +%H%M%S); mkdir -p "$OUT"
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java; JCMD=/usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd
ulimit -n "$(ulimit -Hn)"
CFG=gw-h2c.yaml; SCHEME=http; [[ $MODE == tls ]] && CFG=gw-tls.yaml && SCHEME=https
sed -e 's/18081/29981/; s/19901/29991/; s/18080/29980/' "$ROOT/bench/configs/$CFG" > "$OUT/gw.yaml"
export BENCH_TLS_CERT=/tmp/loomgate-bench/tls/cert.pem BENCH_TLS_KEY=/tmp/loomgate-bench/tls/key.pem
taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:29980 -latency ${LATENCY:-$([[ -n ${STEADY:-} ]] && echo 100ms || echo 4s)} > /dev/null 2>&1 & O=$!
taskset -c 0 $JAVA -XX:+ExitOnOutOfMemoryError -Xmx176m -Xms32m -XX:NewSize=16m -XX:MaxNewSize=16m -XX:+UseSerialGC \
    -XX:ReservedCodeCacheSize=64m -XX:MaxMetaspaceSize=128m -XX:+UseCompactObjectHeaders ${EXTRA:-} \
    "-Xlog:gc*:file=$OUT/gc.log:uptime,tags" \
    -jar "$JAR" serve --config "$OUT/gw.yaml" > "$OUT/gw.log" 2>&1 & P=$!
trap 'kill $P $O 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 300); do curl -sk -o /dev/null -m 2 $SCHEME://127.0.0.1:29981/hello && break; sleep 0.2; done
curl -s -o /dev/null http://127.0.0.1:29980/hello || { echo "the origin did not start (port 29980 taken?)"; exit 1; }
uptime > "$OUT/load.txt"
if [[ -n ${STEADY:-} ]]; then
  nice -n 10 taskset -c 1 h2load -t1 -c200 -m10 -n${WARM:-100000} $SCHEME://127.0.0.1:29981/api/data > "$OUT/h2load-warm.txt" 2>&1
elif [[ -n ${WARM_W9:-} ]]; then
  # W9's own shape as the warm-up (every stream parks on its origin, as in the measured phase): an origin answering
  # /api/data after 100 ms, then it is replaced by the slow one (the gateway re-dials; its pool's old connections fail)
  kill $O; wait $O 2>/dev/null
  taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:29980 -latency 100ms > /dev/null 2>&1 & O=$!
  for _ in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:29980/hello && break; sleep 0.1; done
  nice -n 10 taskset -c 1 h2load -t1 -c200 -m10 -n${WARM:-100000} $SCHEME://127.0.0.1:29981/api/data > "$OUT/h2load-warm.txt" 2>&1
  kill $O; wait $O 2>/dev/null
  taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:29980 -latency ${LATENCY:-4s} > /dev/null 2>&1 & O=$!
  for _ in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:29980/hello && break; sleep 0.1; done
  # a few requests so the pool's dead connections are found and replaced before the measured burst
  nice -n 10 taskset -c 1 h2load -t1 -c10 -m1 -n1000 $SCHEME://127.0.0.1:29981/hello > "$OUT/h2load-warm2.txt" 2>&1
else
  nice -n 10 taskset -c 1 h2load -t1 -c100 -m10 -n${WARM:-150000} $SCHEME://127.0.0.1:29981/hello > "$OUT/h2load-warm.txt" 2>&1
fi
[[ -n ${JFR:-} ]] && $JCMD $P JFR.start name=sc settings="$HERE/frames.jfc" > /dev/null 2>&1
cputicks() { awk '{print $14 + $15}' /proc/$P/stat; }
T0=$(cputicks)
if [[ -n ${STEADY:-} ]]; then
  # W9 itself, steady (origin 100 ms, LATENCY unset): a 20 s run sampled SAMPLE_AT (say 8) s in; the streams parked on
  # their origin at that instant are the ones ChunkFrames reports (those holding an UpstreamAttempt frame)
  nice -n 10 taskset -c 1 h2load -t1 -c200 -m10 -D20 $SCHEME://127.0.0.1:29981/api/data > "$OUT/h2load.txt" 2>&1 & L=$!
else
  nice -n 10 taskset -c 1 h2load -t1 -c200 -m10 -n2000 $SCHEME://127.0.0.1:29981/api/data > "$OUT/h2load.txt" 2>&1 & L=$!
fi
sleep ${SAMPLE_AT:-2}
[[ -n ${JFR:-} ]] && $JCMD $P JFR.stop name=sc filename="$OUT/freeze.jfr" > /dev/null 2>&1
$JCMD $P Thread.dump_to_file -format=json "$OUT/threads.json" > /dev/null 2>&1
$JCMD $P Compiler.codelist > "$OUT/codelist.txt" 2>&1
$JCMD $P GC.class_histogram > "$OUT/histo-during.txt" 2>&1
[[ -n ${HEAPDUMP:-} ]] && $JCMD $P GC.heap_dump "$OUT/heap.hprof" > /dev/null 2>&1
# SA=1 (with HEAPDUMP=1; the origin's LATENCY long enough, e.g. 15s): the chunks' addresses from the dump (nothing
# moves them until the next full collection), then the serviceability agent walks each one's physical frames
# (ChunkFrames.java, compiled into /tmp/sc/sa; the agent's own heap walk misses objects with compact headers)
if [[ -n ${SA:-} ]]; then
  python3 "$HERE/chunks.py" "$OUT/heap.hprof" "$OUT/chunk-addrs.txt" > "$OUT/chunks.txt"
  $JAVA --add-modules jdk.hotspot.agent $(cat /tmp/sc/sa/exports) -cp /tmp/sc/sa ChunkFrames $P "$OUT/chunk-addrs.txt" > "$OUT/frames.txt" 2>&1
fi
wait $L
T1=$(cputicks)
# the gateway's CPU over the measured phase (user + system ticks of 10 ms) per request h2load finished: a hint only on a
# shared machine, and it includes the sample's histogram (and dump, with HEAPDUMP=1: compare runs without SA/HEAPDUMP)
awk -v t=$((T1 - T0)) '/^requests:/{printf "cpu %d ticks, %d requests, %.1f us per request\n", t, $8, t * 10000 / $8}' "$OUT/h2load.txt" > "$OUT/cpu.txt"
$JCMD $P GC.class_histogram > "$OUT/histo-after.txt" 2>&1
uptime >> "$OUT/load.txt"
python3 "$HERE/ours.py" "$OUT" | head -1 | tee "$OUT/summary.txt"
[[ -n ${HEAPDUMP:-} ]] && python3 "$HERE/chunks.py" "$OUT/heap.hprof" > "$OUT/chunks.txt" && rm -f "$OUT/heap.hprof" && tail -4 "$OUT/chunks.txt"
echo "$OUT"
