#!/usr/bin/env bash
# Bytes allocated per request, once warm, for one gateway jar in one shape (issue 39 part 4); the tool that stops 38-52
# kept a copy of in each results folder (bench/results/*-h2perf, -s45-mdcids, -s47-h2alloc, -s50-allocw8, -s51-h2resp,
# -s52-alloc3), made one.
#
# Usage: bench/alloc/run.sh JAR LABEL SHAPE
#   w2    wrk -t1 -c50 /hello, HTTP/1.1 keep-alive (bench/configs/gateway-bench.yaml)
#   w1    wrk -t1 -c$CONNS (200) /api/data, HTTP/1.1 keep-alive, the origin answering after 100 ms: W1's shape, where
#         every connection waits between requests (SECS defaults to 20 here: ~2,000 requests a second)
#   w8    h2load -c100 -m10 /hello over h2c (gw-h2c.yaml)
#   w9    h2load -c100 -m10 /hello over TLS, ALPN h2, Conscrypt (gw-tls-conscrypt.yaml; an ECDSA P-256 certificate made here)
#   w2h2, w8h2: as w2 / w8, but the route's origin is nghttpd over h2c with prior knowledge serving a 5-byte /hello,
#         so the request's HPACK block to an HTTP/2 origin is on the path
# The origin is the harness's Go backend (instant); the gateway on core 0, load and origin on core 1, niced. After WARM
# seconds (w2: of wrk; else h2load's -D) it measures two windows:
#   (1) the heap allocated between two forced GCs (the GC log) and the gateway's CPU ticks over N requests (w8, w9) or
#       SECS seconds (w2);
#   (2) async-profiler's allocation samples (-e alloc, one every ALLOCI bytes) over a second window, per site: the
#       allocated class and the innermost frame of the gateway's own code (top.py ... site).
# Prints one summary line (requests, B/request by the GC log, CPU µs/request, the load average) and writes
# summary.txt, gc.log, the load tool's output and alloc.collapsed.gz into $WORK/$SHAPE-$LABEL.
# Env: CFGFILE (a gateway config instead of the shape's, ports as in bench/configs), DATA (a file: each request is a POST with it as the body; h2load shapes only, e.g. w8h2 with a 1 KiB body
# for the request-body path to an HTTP/2 origin), GRPCLOAD (instead of h2load, for h2 shapes: the binary of
# bench/results/2026-12-02-s57-h2alloc/grpcload, `go build` there; GRPCARGS e.g. "-size 100 -pieces 4"), N (100000), WARM (20), SECS (8), ALLOCI (65536), TOP (60 sites), WORK (/tmp/loomgate-alloc), SITES (a script
# `SITES FILE.collapsed REQUESTS` whose line is added to the summary, e.g. a task's own site groups), AP (the
# libasyncProfiler.so; by default async-profiler 4.1 from Maven Central, unpacked once into $WORK/ap), JAVA, JCMD (25).
# Ports (env): ORIGIN_PORT 29080, PORT 29081, ADMIN_PORT 29091, NGHTTPD_PORT 29082: give each person running it at
# once their own.
set -uo pipefail
JAR=${1:?usage: run.sh JAR LABEL SHAPE}; LABEL=${2:?label}; SHAPE=${3:-w8}
N=${N:-100000}; WARM=${WARM:-20}; SECS=${SECS:-$([[ $SHAPE == w1 ]] && echo 20 || echo 8)}
HERE=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd "$HERE/../.." && pwd)
WORK=${WORK:-/tmp/loomgate-alloc}
ORIGIN_PORT=${ORIGIN_PORT:-29080}; PORT=${PORT:-29081}; ADMIN_PORT=${ADMIN_PORT:-29091}; NGHTTPD_PORT=${NGHTTPD_PORT:-29082}
JAVA=${JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}; JCMD=${JCMD:-$(dirname "$JAVA")/jcmd}
BACKEND=/tmp/loomgate-bench/bin/backend
[[ -x $BACKEND ]] || { echo "no $BACKEND: run ../shared/bench/run.sh once (it builds the Go origin)"; exit 1; }
AP=${AP:-$WORK/ap/linux-x64/libasyncProfiler.so}
if [[ ! -f $AP ]]; then
    mkdir -p "$WORK/ap"
    curl -fsSL -o "$WORK/ap.jar" https://repo1.maven.org/maven2/tools/profiler/async-profiler/4.1/async-profiler-4.1-linux-x64.jar \
        && (cd "$WORK/ap" && unzip -oq ../ap.jar) || { echo "async-profiler not found (set AP=)"; exit 1; }
fi
OUT=$WORK/$SHAPE-$LABEL; rm -rf "$OUT"; mkdir -p "$OUT"
NICE="nice -n 10"
ulimit -n "$(ulimit -Hn)"
CFG=gw-h2c.yaml; [[ $SHAPE == w1 || $SHAPE == w2 || $SHAPE == w2h2 ]] && CFG=gateway-bench.yaml
LATENCY=0; [[ $SHAPE == w1 ]] && LATENCY=100ms
if [[ $SHAPE == w9 ]]; then
    CFG=gw-tls-conscrypt.yaml
    CERTS=$WORK/certs; mkdir -p "$CERTS"
    [[ -f $CERTS/key.pem ]] || openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
        -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -keyout "$CERTS/key.pem" -out "$CERTS/cert.pem" 2>/dev/null
    export BENCH_TLS_CERT=$CERTS/cert.pem BENCH_TLS_KEY=$CERTS/key.pem
fi
# CFGFILE (env): another gateway config for the shape's load (its ports written as 18081, 19901 and 18080, as in
# bench/configs), e.g. a route whose every answer is a refusal
sed -e "s/18081/$PORT/; s/19901/$ADMIN_PORT/; s/18080/$ORIGIN_PORT/" "${CFGFILE:-$ROOT/bench/configs/$CFG}" > "$OUT/gw.yaml"
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null' EXIT
if [[ $SHAPE == *h2 ]]; then
    sed -i "s#uri: http://127.0.0.1:$ORIGIN_PORT#uri: h2c://127.0.0.1:$NGHTTPD_PORT#" "$OUT/gw.yaml"
    mkdir -p "$OUT/docroot"; printf hello > "$OUT/docroot/hello"
    $NICE taskset -c 1 nghttpd --no-tls -d "$OUT/docroot" "$NGHTTPD_PORT" > /dev/null 2>&1 & pids+=($!)
fi
URL=http://127.0.0.1:$PORT/hello; [[ $SHAPE == w9 ]] && URL=https://127.0.0.1:$PORT/hello
[[ $SHAPE == w1 ]] && URL=http://127.0.0.1:$PORT/api/data
$NICE taskset -c 1 "$BACKEND" -addr 127.0.0.1:"$ORIGIN_PORT" -latency "$LATENCY" > /dev/null 2>&1 & pids+=($!)
$NICE taskset -c 0 "$JAVA" -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -Xlog:gc:file="$OUT/gc.log" \
    -jar "$JAR" serve --config "$OUT/gw.yaml" > "$OUT/gw.log" 2>&1 & P=$!; pids+=($P)
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$ORIGIN_PORT/hello" && break; sleep 0.1; done
curl -s -o /dev/null "http://127.0.0.1:$ORIGIN_PORT/hello" || { echo "the origin did not start (port $ORIGIN_PORT taken?)"; exit 1; }
for _ in $(seq 300); do curl -sk -o /dev/null "$URL" 2>/dev/null && break; sleep 0.2; done
if [[ $SHAPE == w2* || $SHAPE == w1 ]]; then
    load() { timeout 300 $NICE taskset -c 1 wrk -t1 -c"$([[ $SHAPE == w1 ]] && echo "${CONNS:-200}" || echo 50)" "$@" "$URL"; }
    count() { awk '/requests in/ { print $1 }' "$1"; }
    window() { load -d"${SECS}"s; }
    warm() { load -d"${WARM}"s; }
elif [[ -n ${GRPCLOAD:-} ]]; then # gRPC-shaped POSTs without content-length (h2load always sends one)
    load() { timeout 300 $NICE taskset -c 1 "$GRPCLOAD" -c 100 -m 10 ${GRPCARGS:-} "$@" -url "$URL"; }
    count() { awk '/^requests:/ { print $8 }' "$1"; }
    window() { load -n "$N"; }
    warm() { load -D "$WARM"; }
else
    load() { timeout 300 $NICE taskset -c 1 h2load -t1 -c100 -m10 ${DATA:+-d "$DATA"} "$@" "$URL"; }
    count() { awk '/^requests:/ { print $8 }' "$1"; }
    window() { load -n"$N"; }
    warm() { load -D"$WARM"; }
fi
warm > /dev/null 2>&1
"$JCMD" $P GC.run > /dev/null
u0=$(awk '{ print $14 + $15 }' /proc/$P/stat)
window > "$OUT/load.txt" 2>&1
u1=$(awk '{ print $14 + $15 }' /proc/$P/stat)
"$JCMD" $P GC.run > /dev/null
sleep 0.5 # the GC log's last line is written after jcmd returns
done=$(count "$OUT/load.txt")
# the heap allocated between the last two full (forced) collections: each young pause's before minus the previous after
alloc=$(awk '/Pause/ { if (match($0, /[0-9]+M->[0-9]+M/)) { s = substr($0, RSTART, RLENGTH); split(s, a, /M->|M/); b[++n] = a[1]; f[n] = a[2]; full[n] = ($0 ~ /Pause Full/) } }
  END { for (i = n; i > 0 && !full[i]; i--); last = i; for (i = last - 1; i > 0 && !full[i]; i--); first = i;
        t = 0; for (i = first + 1; i <= last; i++) t += b[i] - f[i - 1]; print t }' "$OUT/gc.log")
awk -v l="$LABEL" -v s="$SHAPE" -v n="$done" -v a="$alloc" -v c=$((u1 - u0)) -v load="$(cut -d' ' -f1 /proc/loadavg)" -v t="$(date -u +%H:%M:%S)" \
  'BEGIN { printf "%s %s %s: %d requests, GC log: %.0f B/request, CPU %.1f us/request (load %s)\n", t, s, l, n, a*1048576/n, c*10000/n, load }' | tee "$OUT/summary.txt"
"$JCMD" $P JVMTI.agent_load "$AP" "\"start,event=alloc,alloc=${ALLOCI:-65536}\"" > /dev/null
window > "$OUT/load-alloc.txt" 2>&1
"$JCMD" $P JVMTI.agent_load "$AP" "\"stop,file=$OUT/alloc.collapsed,collapsed,total\"" > /dev/null
done2=$(count "$OUT/load-alloc.txt")
[[ -n ${SITES:-} ]] && python3 "$SITES" "$OUT/alloc.collapsed" "$done2" >> "$OUT/summary.txt"
python3 "$HERE/top.py" "$OUT/alloc.collapsed" site "${TOP:-60}" "$done2" >> "$OUT/summary.txt"
gzip -f "$OUT/alloc.collapsed"
