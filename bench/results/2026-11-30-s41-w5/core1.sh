#!/usr/bin/env bash
# core1.sh [JAR]: what core 1 (wrk and the origin) does per W5 request behind each proxy: perf record -C 1 for 4 s in
# the middle of an 8 s load, its samples by command and by kernel or user space, per request (requests from wrk's
# count). Other processes on core 1 count too (the share by command separates them). The three proxies set up as
# origin-pairs.sh sets them up.
#
# What follows is origin-pairs.sh's own comment.
# origin-pairs.sh [JAR]: what the load core (the Go origin, wrk) pays per W5 request behind HAProxy as the harness
# configures it (haproxy-t1-tls.cfg), behind HAProxy adding the gateway's fields (haproxy-t1-tls-forwarded.cfg) and
# behind the gateway (gw-tls-conscrypt.yaml), all three running at once on ports of their own below the ephemeral range (23281, 23282, 23283)
# in front of one origin (23280), loaded in turn for D s each (wrk -t1 -c256 /hello over TLS), ROUNDS times, so
# neighbouring runs share the machine's load. Proxies on core 0, wrk and the origin on core 1, all niced. Prints per run
# the requests/s, the proxy's CPU µs per request, the origin's and wrk's, and core 1's softirq time per request (the
# loopback's receive work done there outside any process's account; other work on core 1 counts too).
set -uo pipefail
JAR=${1:-loomgate-cli/target/loomgate-gateway.jar}; D=${D:-8}; ROUNDS=${ROUNDS:-6}; C=${CONNS:-256}
ROOT=${ROOT:-$(cd "$(dirname "$0")/../../.." && pwd)}; cd "$ROOT"
OUT=/tmp/core1; rm -rf "$OUT"; mkdir -p "$OUT"
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
export BENCH_TLS_CERT=/tmp/loomgate-bench/tls/cert.pem BENCH_TLS_KEY=/tmp/loomgate-bench/tls/key.pem
export BENCH_TLS_PEM=/tmp/loomgate-bench/tls/bench.pem
nice taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:23280 -latency 100ms > "$OUT/origin.log" 2>&1 & BP=$!
hap() { sed -e "s/18081/$2/g; s/18080/23280/g" -e "s|pidfile .*|pidfile $OUT/$2.pid|" "$1" > "$OUT/$2.cfg"
        nice taskset -c 0 haproxy -db -f "$OUT/$2.cfg" > "$OUT/$2.log" 2>&1 & }
hap /work/shared/bench/peers/haproxy-t1-tls.cfg 23281; H1=$!
hap bench/configs/haproxy-t1-tls-forwarded.cfg 23282; H2=$!
sed -e 's/18081/23283/g; s/19901/23992/g; s/18080/23280/g' bench/configs/gw-tls-conscrypt.yaml > "$OUT/gw.yaml"
nice taskset -c 0 $JAVA -Xmx512m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -jar "$JAR" serve --config "$OUT/gw.yaml" \
    > "$OUT/gw.log" 2>&1 & G=$!
trap 'kill $H1 $H2 $G $BP 2>/dev/null; wait 2>/dev/null' EXIT
for p in 23281 23282 23283; do
    for _ in $(seq 300); do curl -sk -o /dev/null https://127.0.0.1:$p/hello && break; sleep 0.2; done
done
W() { nice taskset -c 1 wrk -t1 -c$C -d$2s --timeout 10s https://127.0.0.1:$1/hello; }
W 23283 ${WARM:-60} > /dev/null 2>&1   # the gateway's JIT; HAProxy needs none
W 23281 5 > /dev/null 2>&1; W 23282 5 > /dev/null 2>&1
for ((r = 1; r <= ROUNDS; r++)); do
    for pp in "haproxy 23281" "haproxy-fwd 23282" "loomgate 23283"; do
        read -r name port <<< "$pp"
        nice taskset -c 1 wrk -t1 -c$C -d${D}s --timeout 10s https://127.0.0.1:$port/hello > "$OUT/wrk.txt" 2>&1 & WP=$!
        sleep 2
        perf record -q -C 1 -F 999 -o "$OUT/perf.data" -- sleep 4 > /dev/null 2>&1
        wait $WP
        n=$(awk '/requests in/ { print $1 }' "$OUT/wrk.txt")
        perf report -q -i "$OUT/perf.data" --sort comm --stdio 2>/dev/null | awk -v r=$r -v name=$name -v n=$n -v d=$D '
            $1 ~ /%$/ { sub("%", "", $1); line = line sprintf(" %s %.1f%%", $2, $1) }
            END { printf "%-3s %-11s %6.0f req/s%s\n", r, name, n / d, line }'
        perf report -q -i "$OUT/perf.data" --sort comm,sym --stdio 2>/dev/null | grep -E "^ +[0-9.]+%" | head -12 > "$OUT/$name-$r.top"
    done
done
