#!/usr/bin/env bash
# segments.sh [JAR]: TCP segments per W5 request on each side of each proxy, from the kernel's per-socket counters
# (ss -ti: segs_in, segs_out, data_segs_in, data_segs_out), the three proxies set up as origin-pairs.sh sets them up.
# Each request is one TLS record from wrk in one segment, so a socket's data_segs_in counts requests; everything is
# divided by it. Taken between two snapshots 2 s apart in the middle of an 8 s load. Loopback segments are processed
# (softirq) on the sender's core: what wrk and the origin send (their data and their pure ACKs) costs core 1.
#
# What follows is origin-pairs.sh's own comment.
# origin-pairs.sh [JAR]: what the load core (the Go origin, wrk) pays per W5 request behind HAProxy as the harness
# configures it (haproxy-t1-tls.cfg), behind HAProxy adding the gateway's fields (haproxy-t1-tls-forwarded.cfg) and
# behind the gateway (gw-tls-conscrypt.yaml), all three running at once on ports of their own below the ephemeral range (23181, 23182, 23183)
# in front of one origin (23180), loaded in turn for D s each (wrk -t1 -c256 /hello over TLS), ROUNDS times, so
# neighbouring runs share the machine's load. Proxies on core 0, wrk and the origin on core 1, all niced. Prints per run
# the requests/s, the proxy's CPU µs per request, the origin's and wrk's, and core 1's softirq time per request (the
# loopback's receive work done there outside any process's account; other work on core 1 counts too).
set -uo pipefail
JAR=${1:-loomgate-cli/target/loomgate-gateway.jar}; D=${D:-8}; ROUNDS=${ROUNDS:-6}; C=${CONNS:-256}
ROOT=${ROOT:-$(cd "$(dirname "$0")/../../.." && pwd)}; cd "$ROOT"
OUT=/tmp/segments; rm -rf "$OUT"; mkdir -p "$OUT"
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
export BENCH_TLS_CERT=/tmp/loomgate-bench/tls/cert.pem BENCH_TLS_KEY=/tmp/loomgate-bench/tls/key.pem
export BENCH_TLS_PEM=/tmp/loomgate-bench/tls/bench.pem
nice taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:23180 -latency 100ms > "$OUT/origin.log" 2>&1 & BP=$!
hap() { sed -e "s/18081/$2/g; s/18080/23180/g" -e "s|pidfile .*|pidfile $OUT/$2.pid|" "$1" > "$OUT/$2.cfg"
        nice taskset -c 0 haproxy -db -f "$OUT/$2.cfg" > "$OUT/$2.log" 2>&1 & }
hap /work/shared/bench/peers/haproxy-t1-tls.cfg 23181; H1=$!
hap bench/configs/haproxy-t1-tls-forwarded.cfg 23182; H2=$!
sed -e 's/18081/23183/g; s/19901/23991/g; s/18080/23180/g' bench/configs/gw-tls-conscrypt.yaml > "$OUT/gw.yaml"
nice taskset -c 0 $JAVA -Xmx512m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -jar "$JAR" serve --config "$OUT/gw.yaml" \
    > "$OUT/gw.log" 2>&1 & G=$!
trap 'kill $H1 $H2 $G $BP 2>/dev/null; wait 2>/dev/null' EXIT
for p in 23181 23182 23183; do
    for _ in $(seq 300); do curl -sk -o /dev/null https://127.0.0.1:$p/hello && break; sleep 0.2; done
done
W() { nice taskset -c 1 wrk -t1 -c$C -d$2s --timeout 10s https://127.0.0.1:$1/hello; }
W 23183 ${WARM:-60} > /dev/null 2>&1   # the gateway's JIT; HAProxy needs none
W 23181 5 > /dev/null 2>&1; W 23182 5 > /dev/null 2>&1
snap() { # filter file: one line per socket, its local and peer addresses and the four counters
    ss -tinH state established "$1" | awk 'NF >= 4 && $1 ~ /^[0-9]+$/ { key = $3 "-" $4; next }
        { s1 = s2 = s3 = s4 = 0; for (i = 1; i <= NF; i++) { split($i, kv, ":");
              if (kv[1] == "segs_in") s1 = kv[2]; if (kv[1] == "segs_out") s2 = kv[2]
              if (kv[1] == "data_segs_in") s3 = kv[2]; if (kv[1] == "data_segs_out") s4 = kv[2] }
          print key, s1, s2, s3, s4 }' > "$2"
}
delta() { # before after: the sums of the counters' growth over the sockets in both snapshots
    awk 'NR == FNR { a[$1] = $0; next } ($1 in a) { split(a[$1], b, " "); for (i = 2; i <= 5; i++) d[i] += $i - b[i] }
         END { printf "%d %d %d %d\n", d[2], d[3], d[4], d[5] }' "$1" "$2"
}
printf '%-5s %-11s %s\n' round proxy "per request: client side (proxy's sockets) in/out, data in/out; origin side in/out, data in/out"
for ((r = 1; r <= ROUNDS; r++)); do
    for pp in "haproxy 23181" "haproxy-fwd 23182" "loomgate 23183"; do
        read -r name port <<< "$pp"
        nice taskset -c 1 wrk -t1 -c$C -d${D}s --timeout 10s https://127.0.0.1:$port/hello > /dev/null 2>&1 & WP=$!
        sleep 3
        snap "( sport = :$port )" "$OUT/c0"; snap "( dport = :23180 )" "$OUT/o0"
        sleep 2
        snap "( sport = :$port )" "$OUT/c1"; snap "( dport = :23180 )" "$OUT/o1"
        wait $WP
        # the origin side's sockets: only this proxy's carry traffic in the window (the others are idle; a socket
        # closed or opened between the snapshots is left out)
        read -r ci co cdi cdo < <(delta "$OUT/c0" "$OUT/c1")
        read -r oi oo odi odo < <(delta "$OUT/o0" "$OUT/o1")
        awk -v r=$r -v name=$name -v n=$cdi -v ci=$ci -v co=$co -v cdo=$cdo \
            -v oi=$oi -v oo=$oo -v odi=$odi -v odo=$odo 'BEGIN {
            if (n <= 0) { print r, name, "no requests in the window"; exit }
            printf "%-5s %-11s client in %.2f out %.2f (data in %.2f out %.2f)  origin in %.2f out %.2f (data in %.2f out %.2f)  %d requests\n",
                r, name, ci / n, co / n, 1, cdo / n, oi / n, oo / n, odi / n, odo / n, n }'
    done
done
