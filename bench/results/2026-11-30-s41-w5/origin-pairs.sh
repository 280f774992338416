#!/usr/bin/env bash
# origin-pairs.sh [JAR]: what the load core (the Go origin, wrk) pays per W5 request behind HAProxy as the harness
# configures it (haproxy-t1-tls.cfg), behind HAProxy adding the gateway's fields (haproxy-t1-tls-forwarded.cfg) and
# behind the gateway (gw-tls-conscrypt.yaml), all three running at once on ports of their own below the ephemeral range (23081, 23082, 23083)
# in front of one origin (23080), loaded in turn for D s each (wrk -t1 -c256 /hello over TLS), ROUNDS times, so
# neighbouring runs share the machine's load. Proxies on core 0, wrk and the origin on core 1, all niced. Prints per run
# the requests/s, the proxy's CPU µs per request, the origin's and wrk's, and core 1's softirq time per request (the
# loopback's receive work done there outside any process's account; other work on core 1 counts too).
set -uo pipefail
JAR=${1:-loomgate-cli/target/loomgate-gateway.jar}; D=${D:-8}; ROUNDS=${ROUNDS:-6}; C=${CONNS:-256}
ROOT=${ROOT:-$(cd "$(dirname "$0")/../../.." && pwd)}; cd "$ROOT"
OUT=/tmp/origin-pairs; rm -rf "$OUT"; mkdir -p "$OUT"
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
export BENCH_TLS_CERT=/tmp/loomgate-bench/tls/cert.pem BENCH_TLS_KEY=/tmp/loomgate-bench/tls/key.pem
export BENCH_TLS_PEM=/tmp/loomgate-bench/tls/bench.pem
nice taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:23080 -latency 100ms > "$OUT/origin.log" 2>&1 & BP=$!
hap() { sed -e "s/18081/$2/g; s/18080/23080/g" -e "s|pidfile .*|pidfile $OUT/$2.pid|" "$1" > "$OUT/$2.cfg"
        nice taskset -c 0 haproxy -db -f "$OUT/$2.cfg" > "$OUT/$2.log" 2>&1 & }
hap /work/shared/bench/peers/haproxy-t1-tls.cfg 23081; H1=$!
hap bench/configs/haproxy-t1-tls-forwarded.cfg 23082; H2=$!
sed -e 's/18081/23083/g; s/19901/23901/g; s/18080/23080/g' bench/configs/gw-tls-conscrypt.yaml > "$OUT/gw.yaml"
nice taskset -c 0 $JAVA -Xmx512m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -jar "$JAR" serve --config "$OUT/gw.yaml" \
    > "$OUT/gw.log" 2>&1 & G=$!
trap 'kill $H1 $H2 $G $BP 2>/dev/null; wait 2>/dev/null' EXIT
for p in 23081 23082 23083; do
    for _ in $(seq 300); do curl -sk -o /dev/null https://127.0.0.1:$p/hello && break; sleep 0.2; done
done
W() { nice taskset -c 1 wrk -t1 -c$C -d$2s --timeout 10s https://127.0.0.1:$1/hello; }
W 23083 ${WARM:-60} > /dev/null 2>&1   # the gateway's JIT; HAProxy needs none
W 23081 5 > /dev/null 2>&1; W 23082 5 > /dev/null 2>&1
t() { awk '{ print $14 + $15 }' /proc/$1/stat; }
sirq() { awk '$1 == "cpu1" { print $8 }' /proc/stat; } # core 1's softirq ticks: receive work no process is charged
printf '%-5s %-11s %9s %12s %12s %10s %14s %6s\n' round proxy req/s "proxy µs/req" "origin µs/req" "wrk µs/req" \
    "core1 softirq" load
for ((r = 1; r <= ROUNDS; r++)); do
    for pp in "haproxy 23081 $H1" "haproxy-fwd 23082 $H2" "loomgate 23083 $G"; do
        read -r name port pid <<< "$pp"
        p0=$(t $pid); o0=$(t $BP); q0=$(sirq)
        /usr/bin/time -f "%U %S" -o "$OUT/wrk.time" nice taskset -c 1 wrk -t1 -c$C -d${D}s --timeout 10s \
            https://127.0.0.1:$port/hello > "$OUT/wrk.txt" 2>&1
        p1=$(t $pid); o1=$(t $BP); q1=$(sirq)
        n=$(awk '/requests in/ { print $1 }' "$OUT/wrk.txt"); read -r wu ws < "$OUT/wrk.time"
        awk -v r=$r -v name=$name -v n=$n -v d=$D -v p=$((p1 - p0)) -v o=$((o1 - o0)) -v w="$wu $ws" -v q=$((q1 - q0)) \
            -v load="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN { split(w, x, " ");
            printf "%-5s %-11s %9.0f %12.1f %12.1f %10.1f %14.1f %6s\n", r, name, n / d, p * 10000 / n, o * 10000 / n,
                (x[1] + x[2]) * 1e6 / n, q * 10000 / n, load }'
    done
done
