#!/usr/bin/env bash
# alloc.sh JAR LABEL SHAPE: bytes allocated per request in W8's shape (SHAPE=w8: h2load -c100 -m10 /hello over h2c)
# or W9's (SHAPE=w9: h2load -c200 -m10 /api/data, h2 over TLS by ALPN, JSSE, the origin's 100 ms), once warm. Counts
# that do not depend on the machine's load: (1) the heap allocated between two forced GCs over N requests (GC log,
# Serial GC, in whole MB); (2) async-profiler's allocation samples (every ALLOCI bytes, TLAB-driven, with the
# allocating stack) over N more requests, as totals per request by class and first gateway frame (top.py).
# Ports 38181 -> 38180 (admin 39911), gateway on core 0, load and origin on core 1, niced (the machine is shared).
# Needs the harness's Go origin and certificate in /tmp/loomgate-bench, h2load, async-profiler 4.1's
# libasyncProfiler.so (from ~/.m2, linux-x64/) at $AP. CPU=1 adds async-profiler CPU samples over N more requests.
# Stop 38's alloc.sh on ports 38181/38180/39911 (stop 39), kept as run, not a maintained bench script.
set -uo pipefail
JAR=$1; LABEL=$2; SHAPE=${3:-w8}; N=${N:-100000}; WARM=${WARM:-40}
HERE=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd "$HERE/../../.." && pwd)
AP=${AP:-/tmp/h2perf/ap/libasyncProfiler.so}
OUT=/tmp/h2hdr/$SHAPE-$LABEL; rm -rf "$OUT"; mkdir -p "$OUT"
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java; JCMD=/usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd
NICE="nice -n 10"
if [[ $SHAPE == w8 ]]; then
    sed -e 's/18081/38181/; s/19901/39911/; s/18080/38180/' "$ROOT/bench/configs/gw-h2c.yaml" > "$OUT/gw.yaml"
    URL=http://127.0.0.1:38181/hello; CONNS=100; LAT=0
else
    export BENCH_TLS_CERT=/tmp/loomgate-bench/tls/cert.pem BENCH_TLS_KEY=/tmp/loomgate-bench/tls/key.pem
    sed -e 's/18081/38181/; s/19901/39911/; s/18080/38180/' "$ROOT/bench/configs/gw-tls.yaml" > "$OUT/gw.yaml"
    URL=https://127.0.0.1:38181/api/data; CONNS=200; LAT=100ms
fi
$NICE taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:38180 -latency $LAT > /dev/null 2>&1 & BP=$!
$NICE taskset -c 0 $JAVA -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -Xlog:gc:file=$OUT/gc.log \
    ${JVM_EXTRA:-} -jar "$JAR" serve --config "$OUT/gw.yaml" > "$OUT/gw.log" 2>&1 & P=$!
trap 'kill $P $BP 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 300); do
    curl -sk -o /dev/null --http2 https://127.0.0.1:38181/hello 2>/dev/null && break
    curl -s --http2-prior-knowledge -o /dev/null http://127.0.0.1:38181/hello 2>/dev/null && break
    sleep 0.2
done
load() { $NICE taskset -c 1 h2load -t1 -c$CONNS -m10 "$@" $URL; }
for ((l = WARM; l > 0; l -= 10)); do load -D10 > /dev/null 2>&1; done
$JCMD $P GC.run > /dev/null
load -n$N > $OUT/h2load.txt 2>&1
$JCMD $P GC.run > /dev/null
sleep 0.5
done=$(awk '/^requests:/ { print $8 }' $OUT/h2load.txt)
# between the two forced GCs: each young GC's "before" minus the last "after", up to the second full GC's "before"
alloc=$(awk '/Pause/ { if (match($0, /[0-9]+M->[0-9]+M/)) { s = substr($0, RSTART, RLENGTH); split(s, a, /M->|M/); b[++n] = a[1]; f[n] = a[2]; full[n] = ($0 ~ /Pause Full/) } }
  END { for (i = n; i > 0 && !full[i]; i--); last = i; for (i = last - 1; i > 0 && !full[i]; i--); first = i;
        t = 0; for (i = first + 1; i <= last; i++) t += b[i] - f[i - 1]; print t }' $OUT/gc.log)
awk -v l=$LABEL -v s=$SHAPE -v n=$done -v a=$alloc -v load="$(cut -d' ' -f1 /proc/loadavg)" \
  'BEGIN { printf "%s %s: %d requests, GC log: %.0f B/request (load %s)\n", s, l, n, a*1048576/n, load }' | tee $OUT/summary.txt
$JCMD $P JVMTI.agent_load $AP "\"start,event=alloc,alloc=${ALLOCI:-65536}\"" > /dev/null
load -n$N > $OUT/h2load-alloc.txt 2>&1
$JCMD $P JVMTI.agent_load $AP "\"stop,file=$OUT/alloc.collapsed,collapsed,total\"" > /dev/null
done2=$(awk '/^requests:/ { print $8 }' $OUT/h2load-alloc.txt)
python3 "$HERE/../2026-11-29-h2perf/top.py" $OUT/alloc.collapsed site ${TOP:-45} $done2 | tee -a $OUT/summary.txt
if [[ ${CPU:-0} == 1 ]]; then # CPU samples (1 ms) over N more requests: self, then inclusive for the gateway's frames
    $JCMD $P JVMTI.agent_load $AP "\"start,event=cpu,interval=1000000\"" > /dev/null
    load -n$N > $OUT/h2load-cpu.txt 2>&1
    $JCMD $P JVMTI.agent_load $AP "\"stop,file=$OUT/cpu.collapsed,collapsed\"" > /dev/null
    { echo "## CPU samples, self"; python3 "$HERE/../2026-11-29-h2perf/top.py" $OUT/cpu.collapsed self 40
      echo "## CPU samples, inclusive, the gateway's frames"
      python3 "$HERE/../2026-11-29-h2perf/top.py" $OUT/cpu.collapsed incl 400 | grep -E "total|io/loomgate" | head -60
    } | tee -a $OUT/summary.txt
fi
