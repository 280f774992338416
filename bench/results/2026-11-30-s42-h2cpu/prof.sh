#!/usr/bin/env bash
# prof.sh JAR LABEL SHAPE: stop 38's alloc.sh (../2026-11-29-s38-h2perf/alloc.sh) on ports of its own (42081 -> 42080,
# admin 42901) so it runs beside the harness, with SHAPE w8 (h2load -c100 -m10 /hello over h2c, instant origin) or
# w9c (-c200 -m10 /api/data over TLS by ALPN with Conscrypt, gw-tls-conscrypt.yaml, 100 ms origin). Once warm (WARM
# seconds of the shape's load): (1) the heap allocated between two forced GCs over N requests (GC log); (2)
# async-profiler's allocation samples over N more; (3) with CPU=1, CPU samples (itimer, 1 ms) over N more.
# The gateway on core 0, load and origin on core 1, niced. AP: libasyncProfiler.so (async-profiler 4.1, linux-x64).
set -uo pipefail
JAR=$1; LABEL=$2; SHAPE=${3:-w8}; N=${N:-100000}; WARM=${WARM:-40}
HERE=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd "$HERE/../../.." && pwd)
AP=${AP:-/tmp/h2cpu/ap/linux-x64/libasyncProfiler.so}
OUT=${OUTROOT:-/tmp/h2cpu/out}/$SHAPE-$LABEL; rm -rf "$OUT"; mkdir -p "$OUT"
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java; JCMD=/usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd
NICE="nice -n 10"
ulimit -n "$(ulimit -Hn)"
if [[ $SHAPE == w8 ]]; then
    sed -e 's/18081/42081/; s/19901/42901/; s/18080/42080/' "$ROOT/bench/configs/gw-h2c.yaml" > "$OUT/gw.yaml"
    URL=http://127.0.0.1:42081/hello; CONNS=100; LAT=0
else
    export BENCH_TLS_CERT=/tmp/loomgate-bench/tls/cert.pem BENCH_TLS_KEY=/tmp/loomgate-bench/tls/key.pem
    sed -e 's/18081/42081/; s/19901/42901/; s/18080/42080/' "$ROOT/bench/configs/gw-tls-conscrypt.yaml" > "$OUT/gw.yaml"
    URL=https://127.0.0.1:42081/api/data; CONNS=200; LAT=100ms
fi
$NICE taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:42080 -latency $LAT > /dev/null 2>&1 & BP=$!
$NICE taskset -c 0 $JAVA -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -Xlog:gc:file=$OUT/gc.log \
    ${JVM_EXTRA:-} -jar "$JAR" serve --config "$OUT/gw.yaml" > "$OUT/gw.log" 2>&1 & P=$!
trap 'kill $P $BP 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 300); do
    curl -sk -o /dev/null --http2 https://127.0.0.1:42081/hello 2>/dev/null && break
    curl -s --http2-prior-knowledge -o /dev/null http://127.0.0.1:42081/hello 2>/dev/null && break
    sleep 0.2
done
load() { timeout 300 $NICE taskset -c 1 h2load -t1 -c$CONNS -m10 "$@" $URL; }
for ((l = WARM; l > 0; l -= 10)); do load -D10 > /dev/null 2>&1; done
$JCMD $P GC.run > /dev/null
u0=$(awk '{ print $14 + $15 }' /proc/$P/stat)
load -n$N > $OUT/h2load.txt 2>&1
u1=$(awk '{ print $14 + $15 }' /proc/$P/stat)
$JCMD $P GC.run > /dev/null
sleep 0.5
done=$(awk '/^requests:/ { print $8 }' $OUT/h2load.txt)
alloc=$(awk '/Pause/ { if (match($0, /[0-9]+M->[0-9]+M/)) { s = substr($0, RSTART, RLENGTH); split(s, a, /M->|M/); b[++n] = a[1]; f[n] = a[2]; full[n] = ($0 ~ /Pause Full/) } }
  END { for (i = n; i > 0 && !full[i]; i--); last = i; for (i = last - 1; i > 0 && !full[i]; i--); first = i;
        t = 0; for (i = first + 1; i <= last; i++) t += b[i] - f[i - 1]; print t }' $OUT/gc.log)
awk -v l=$LABEL -v s=$SHAPE -v n=$done -v a=$alloc -v c=$((u1 - u0)) -v load="$(cut -d' ' -f1 /proc/loadavg)" \
  'BEGIN { printf "%s %s: %d requests, GC log: %.0f B/request, CPU %.1f us/request (load %s)\n", s, l, n, a*1048576/n, c*10000/n, load }' | tee $OUT/summary.txt
$JCMD $P JVMTI.agent_load $AP "\"start,event=alloc,alloc=${ALLOCI:-65536}\"" > /dev/null
load -n$N > $OUT/h2load-alloc.txt 2>&1
$JCMD $P JVMTI.agent_load $AP "\"stop,file=$OUT/alloc.collapsed,collapsed,total\"" > /dev/null
done2=$(awk '/^requests:/ { print $8 }' $OUT/h2load-alloc.txt)
python3 "$HERE/top.py" $OUT/alloc.collapsed site ${TOP:-45} $done2 >> $OUT/summary.txt
python3 "$HERE/top.py" $OUT/alloc.collapsed site 3 $done2 2>/dev/null | head -1 | sed "s/^/alloc samples: /"
if [[ ${CPU:-0} == 1 ]]; then
    $JCMD $P JVMTI.agent_load $AP "\"start,event=${EVENT:-itimer},interval=${INTERVAL:-1000000}\"" > /dev/null
    load -n$N > $OUT/h2load-cpu.txt 2>&1
    $JCMD $P JVMTI.agent_load $AP "\"stop,file=$OUT/cpu.collapsed,collapsed${AP_EXTRA:-}\"" > /dev/null
    { echo "## CPU samples, self"; python3 "$HERE/top.py" $OUT/cpu.collapsed self 50
      echo "## CPU samples, inclusive, the gateway's frames"
      python3 "$HERE/top.py" $OUT/cpu.collapsed incl 600 | grep -E "total|io/loomgate" | head -80
    } >> $OUT/summary.txt
fi
