#!/usr/bin/env bash
# churn.sh PROXY [PAIRS]: what W9's dial churn costs, one proxy started once (PROXY: loomgate JAR=..., or haproxy).
# W9's shape over TLS (h2load -c200 -m10 /api/data, 100 ms origin) on ports 23081 -> 23080 (admin 23901), proxy on
# core 0, load and origin on core 1. After WARM seconds, pairs of 10 s windows, each after a 5 s prelude that ends
# either as h2load -D ends (its ~2,000 streams in flight reset: "reset") or as h2load -n ends (every stream
# answered: "clean"), alternated (reset, clean; clean, reset; ...). Per window: requests/s, CPU us per request
# (user, kernel) from /proc, upstream connect()s per request (perf), load.
set -uo pipefail
PROXY=$1; PAIRS=${2:-3}; WARM=${WARM:-40}
HERE=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd "$HERE/../../.." && pwd)
OUT=/tmp/h2cpu2/churn-$PROXY-$$; mkdir -p $OUT
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
export BENCH_TLS_CERT=/tmp/loomgate-bench/tls/cert.pem BENCH_TLS_KEY=/tmp/loomgate-bench/tls/key.pem
export BENCH_TLS_PEM=/tmp/loomgate-bench/tls/bench.pem
ulimit -n "$(ulimit -Hn)"
nice -n 10 taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:23080 -latency 100ms > /dev/null 2>&1 & BP=$!
if [[ $PROXY == haproxy ]]; then
    sed -e 's/18081/23081/; s/18080/23080/; s|pidfile .*|pidfile '$OUT'/hap.pid|' /work/shared/bench/peers/haproxy-t1-tls.cfg > $OUT/hap.cfg
    nice -n 5 taskset -c 0 haproxy -db -f $OUT/hap.cfg > $OUT/proxy.log 2>&1 & P=$!
else
    CFG=${CFG:-$ROOT/bench/configs/gw-tls.yaml}
    sed -e 's/18081/23081/; s/19901/23901/; s/18080/23080/' "$CFG" > $OUT/gw.yaml
    nice -n 5 taskset -c 0 $JAVA -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -jar "$JAR" serve \
        --config $OUT/gw.yaml > $OUT/proxy.log 2>&1 & P=$!
fi
trap 'kill $P $BP 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:23080/hello && break; sleep 0.1; done
curl -s -o /dev/null http://127.0.0.1:23080/hello || { echo 'origin not up on 23080' >&2; exit 1; }
for _ in $(seq 300); do curl -sk -o /dev/null https://127.0.0.1:23081/hello && break; sleep 0.2; done
h2() { timeout 100 nice -n 10 taskset -c 1 h2load -t1 -c200 -m10 "$@" https://127.0.0.1:23081/api/data 2>&1; }
for ((l = WARM; l > 0; l -= 10)); do h2 -D10 > /dev/null; done
window() { # kind
    if [[ $1 == reset ]]; then h2 -D5 > /dev/null; else h2 -n60000 > /dev/null; fi
    local u0 u1 out n
    u0=$(awk '{ print $14, $15 }' /proc/$P/stat)
    perf stat -x, -e syscalls:sys_enter_connect -p $P -o $OUT/perf 2>/dev/null & local pp=$!
    out=$(h2 -D10)
    kill -INT $pp; wait $pp 2>/dev/null
    u1=$(awk '{ print $14, $15 }' /proc/$P/stat)
    n=$(awk '/^requests:/ { print $8 }' <<< "$out")
    awk -v k=$1 -v n=$n -v a="$u0" -v b="$u1" -v c="$(awk -F, '/connect/ { print $1 }' $OUT/perf)" -v load="$(cut -d' ' -f1 /proc/loadavg)" \
        'BEGIN { split(a, x, " "); split(b, y, " "); u = y[1] - x[1]; s = y[2] - x[2]
                 printf "%-5s %7.0f req/s  CPU %5.1f us/req (user %5.1f, kernel %5.1f)  connects %5d (%.4f/req)  load %s\n",
                     k, n / 10, (u + s) * 10000 / n, u * 10000 / n, s * 10000 / n, c, c / n, load }'
}
echo "$PROXY ${JAR:-} $(date -u +%T)"
for p in $(seq $PAIRS); do
    if ((p % 2)); then window reset; window clean; else window clean; window reset; fi
done
echo "end $(date -u +%T) $(uptime)"
