#!/usr/bin/env bash
# alloc.sh JAR LABEL SHAPE: stop 50's alloc.sh (../2026-12-01-s50-allocw8/alloc.sh) on ports of session 52 alloc3's own:
# origin 29480, gateway 29481, admin 29491; OUTROOT defaults to /tmp/alloc4/out. SHAPE w8 (h2load -c100 -m10 /hello over h2c,
# gw-h2c.yaml) or w2 (wrk -t1 -c50 /hello, HTTP/1.1 keep-alive, gateway-bench.yaml); instant origin. Once warm (WARM s):
# (1) the heap allocated between two forced GCs over one measured window (GC log) and the CPU ticks of the gateway;
# (2) async-profiler 4.1's allocation samples (-e alloc, every ALLOCI bytes) over a second window, per site.
# SHAPE w9 (stop 50): h2load -c100 -m10 /hello over TLS (ALPN h2), gw-tls-conscrypt.yaml, a certificate made here.
# Session 52 (alloc3): SHAPE w2h2 / w8h2: as w2 / w8, but the route's origin is nghttpd (nghttp2 1.52) over h2c with prior
# knowledge on 29482, serving a 5-byte file /hello: the request's HPACK block to an HTTP/2 origin is on the path.
# Gateway on core 0, load and origin on core 1, niced.
set -uo pipefail
JAR=$1; LABEL=$2; SHAPE=${3:-w8}; N=${N:-100000}; WARM=${WARM:-20}; SECS=${SECS:-8}
HERE=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd "$HERE/../../.." && pwd)
AP=${AP:-/tmp/alloc4/ap/linux-x64/libasyncProfiler.so}
OUT=${OUTROOT:-/tmp/alloc4/out}/$SHAPE-$LABEL; rm -rf "$OUT"; mkdir -p "$OUT"
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java; JCMD=/usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd
NICE="nice -n 10"
ulimit -n "$(ulimit -Hn)"
CFG=gw-h2c.yaml; [[ $SHAPE == w2 || $SHAPE == w2h2 ]] && CFG=gateway-bench.yaml
if [[ $SHAPE == w9 ]]; then # h2 over TLS (Conscrypt, ECDSA P-256 made here once), h2load as at W8
    CFG=gw-tls-conscrypt.yaml
    CERTS=${OUTROOT:-/tmp/alloc4/out}/certs; mkdir -p "$CERTS"
    [[ -f $CERTS/key.pem ]] || openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
        -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -keyout "$CERTS/key.pem" -out "$CERTS/cert.pem" 2>/dev/null
    export BENCH_TLS_CERT=$CERTS/cert.pem BENCH_TLS_KEY=$CERTS/key.pem
fi
sed -e 's/18081/29481/; s/19901/29491/; s/18080/29480/' "$ROOT/bench/configs/$CFG" > "$OUT/gw.yaml"
if [[ $SHAPE == *h2 ]]; then # the route to nghttpd over h2c
    sed -i 's#uri: http://127.0.0.1:29480#uri: h2c://127.0.0.1:29482#' "$OUT/gw.yaml"
    mkdir -p "$OUT/docroot"; printf hello > "$OUT/docroot/hello"
    $NICE taskset -c 1 nghttpd --no-tls -d "$OUT/docroot" 29482 > /dev/null 2>&1 & NP=$!
fi
URL=http://127.0.0.1:29481/hello; [[ $SHAPE == w9 ]] && URL=https://127.0.0.1:29481/hello
$NICE taskset -c 1 /tmp/alloc4/bin/backend -addr 127.0.0.1:29480 -latency 0 > /dev/null 2>&1 & BP=$!
$NICE taskset -c 0 $JAVA -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -Xlog:gc:file=$OUT/gc.log \
    -jar "$JAR" serve --config "$OUT/gw.yaml" > "$OUT/gw.log" 2>&1 & P=$!
trap 'kill $P $BP ${NP:-} 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 100); do curl -s -o /dev/null http://127.0.0.1:29480/hello && break; sleep 0.1; done
curl -s -o /dev/null http://127.0.0.1:29480/hello || { echo "the origin did not start (port 29480 taken?)"; exit 1; }
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
$JCMD $P GC.run > /dev/null
u0=$(awk '{ print $14 + $15 }' /proc/$P/stat)
window > $OUT/load.txt 2>&1
u1=$(awk '{ print $14 + $15 }' /proc/$P/stat)
$JCMD $P GC.run > /dev/null
sleep 0.5
done=$(count $OUT/load.txt)
alloc=$(awk '/Pause/ { if (match($0, /[0-9]+M->[0-9]+M/)) { s = substr($0, RSTART, RLENGTH); split(s, a, /M->|M/); b[++n] = a[1]; f[n] = a[2]; full[n] = ($0 ~ /Pause Full/) } }
  END { for (i = n; i > 0 && !full[i]; i--); last = i; for (i = last - 1; i > 0 && !full[i]; i--); first = i;
        t = 0; for (i = first + 1; i <= last; i++) t += b[i] - f[i - 1]; print t }' $OUT/gc.log)
awk -v l=$LABEL -v s=$SHAPE -v n=$done -v a=$alloc -v c=$((u1 - u0)) -v load="$(cut -d' ' -f1 /proc/loadavg)" -v t="$(date -u +%H:%M:%S)" \
  'BEGIN { printf "%s %s %s: %d requests, GC log: %.0f B/request, CPU %.1f us/request (load %s)\n", t, s, l, n, a*1048576/n, c*10000/n, load }' | tee $OUT/summary.txt
$JCMD $P JVMTI.agent_load $AP "\"start,event=alloc,alloc=${ALLOCI:-65536}\"" > /dev/null
window > $OUT/load-alloc.txt 2>&1
$JCMD $P JVMTI.agent_load $AP "\"stop,file=$OUT/alloc.collapsed,collapsed,total\"" > /dev/null
done2=$(count $OUT/load-alloc.txt)
python3 "$HERE/sites.py" $OUT/alloc.collapsed $done2 >> $OUT/summary.txt
python3 "$HERE/top.py" $OUT/alloc.collapsed site ${TOP:-60} $done2 >> $OUT/summary.txt
gzip -c $OUT/alloc.collapsed > $OUT/alloc.collapsed.gz
