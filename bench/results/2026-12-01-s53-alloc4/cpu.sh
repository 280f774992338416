#!/usr/bin/env bash
# cpu.sh JAR LABEL SHAPE: as alloc.sh (same gateway, origin and load, ports of its own: origin 29420, gateway 29421,
# admin 29431, nghttpd 29422, so it never meets an alloc.sh run), but once warm (WARM s) async-profiler samples CPU
# (event=cpu, falling back to itimer where perf events are not allowed; interval 1 ms) over one window of N requests,
# and cpushare.py prints the gateway's own code's share of the samples (leaf frame in io/loomgate) and the share of
# the sites session 53 touched (FrameReader, HpackDecoder, StreamTable, HashMap and Integer.equals/hashCode under
# the h2 code).
set -uo pipefail
JAR=$1; LABEL=$2; SHAPE=${3:-w8}; N=${N:-100000}; WARM=${WARM:-20}; SECS=${SECS:-8}
HERE=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd "$HERE/../../.." && pwd)
AP=${AP:-/tmp/alloc4/ap/linux-x64/libasyncProfiler.so}
OUT=${OUTROOT:-/tmp/alloc4/cpuout}/$SHAPE-$LABEL; rm -rf "$OUT"; mkdir -p "$OUT"
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java; JCMD=/usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd
NICE="nice -n 10"
ulimit -n "$(ulimit -Hn)"
CFG=gw-h2c.yaml; [[ $SHAPE == w2 || $SHAPE == w2h2 ]] && CFG=gateway-bench.yaml
if [[ $SHAPE == w9 ]]; then # h2 over TLS (Conscrypt, ECDSA P-256 made here once), h2load as at W8
    CFG=gw-tls-conscrypt.yaml
    CERTS=${OUTROOT:-/tmp/alloc4/cpuout}/certs; mkdir -p "$CERTS"
    [[ -f $CERTS/key.pem ]] || openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
        -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -keyout "$CERTS/key.pem" -out "$CERTS/cert.pem" 2>/dev/null
    export BENCH_TLS_CERT=$CERTS/cert.pem BENCH_TLS_KEY=$CERTS/key.pem
fi
sed -e 's/18081/29421/; s/19901/29431/; s/18080/29420/' "$ROOT/bench/configs/$CFG" > "$OUT/gw.yaml"
if [[ $SHAPE == *h2 ]]; then # the route to nghttpd over h2c
    sed -i 's#uri: http://127.0.0.1:29420#uri: h2c://127.0.0.1:29422#' "$OUT/gw.yaml"
    mkdir -p "$OUT/docroot"; printf hello > "$OUT/docroot/hello"
    $NICE taskset -c 1 nghttpd --no-tls -d "$OUT/docroot" 29422 > /dev/null 2>&1 & NP=$!
fi
URL=http://127.0.0.1:29421/hello; [[ $SHAPE == w9 ]] && URL=https://127.0.0.1:29421/hello
$NICE taskset -c 1 /tmp/alloc4/bin/backend -addr 127.0.0.1:29420 -latency 0 > /dev/null 2>&1 & BP=$!
$NICE taskset -c 0 $JAVA -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -Xlog:gc:file=$OUT/gc.log \
    -jar "$JAR" serve --config "$OUT/gw.yaml" > "$OUT/gw.log" 2>&1 & P=$!
trap 'kill $P $BP ${NP:-} 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 100); do curl -s -o /dev/null http://127.0.0.1:29420/hello && break; sleep 0.1; done
curl -s -o /dev/null http://127.0.0.1:29420/hello || { echo "the origin did not start (port 29420 taken?)"; exit 1; }
for _ in $(seq 300); do curl -sk -o /dev/null $URL 2>/dev/null && break; sleep 0.2; done
if [[ $SHAPE == w8 || $SHAPE == w9 || $SHAPE == w8h2 ]]; then
    load() { timeout 300 $NICE taskset -c 1 h2load -t1 -c100 -m10 "$@" $URL; }
    count() { awk '/^requests:/ { print $8 }' "$1"; }
    window() { load -n$N; }
else
    load() { timeout 300 $NICE taskset -c 1 wrk -t1 -c50 "$@" $URL; }
    count() { awk '/requests in/ { print $1 }' "$1"; }
    window() { load -d${SECS}s; }
fi
load $([[ $SHAPE == w2* ]] && echo -d${WARM}s || echo -D$WARM) > /dev/null 2>&1
u0=$(awk '{ print $14 + $15 }' /proc/$P/stat)
$JCMD $P JVMTI.agent_load $AP "\"start,event=${EVENT:-cpu},interval=1ms\"" > $OUT/ap-start.txt 2>&1
window > $OUT/load.txt 2>&1
$JCMD $P JVMTI.agent_load $AP "\"stop,file=$OUT/cpu.collapsed,collapsed\"" > /dev/null
u1=$(awk '{ print $14 + $15 }' /proc/$P/stat)
done=$(count $OUT/load.txt)
awk -v l=$LABEL -v s=$SHAPE -v n=$done -v c=$((u1 - u0)) -v load="$(cut -d' ' -f1 /proc/loadavg)" -v t="$(date -u +%H:%M:%S)" \
  'BEGIN { printf "%s %s %s: %d requests, CPU %.1f us/request (load %s)\n", t, s, l, n, c*10000/n, load }' | tee $OUT/summary.txt
python3 "$HERE/cpushare.py" $OUT/cpu.collapsed >> $OUT/summary.txt
gzip -c $OUT/cpu.collapsed > $OUT/cpu.collapsed.gz
