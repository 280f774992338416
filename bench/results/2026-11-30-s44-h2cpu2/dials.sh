#!/usr/bin/env bash
# dials.sh JAR [RUNS]: W9's shape (h2load -c200 -m10 /api/data over TLS by ALPN, JSSE, 100 ms origin) on ports of its
# own (23081 -> 23080, admin 23901), gateway on core 0, load and origin on core 1 (niced). After WARM seconds of
# load in 10 s runs, RUNS more 10 s runs; before and after each, and 3 s after its end, the upstream dials
# (loomgate_upstream_acquired_total{reused="false"}), the upstream errors by kind, and the socket count. The access
# log (ACCESS=1, json, to the gateway's stdout) says how the exchanges that ended with each run's end ended.
set -uo pipefail
JAR=$1; RUNS=${2:-3}; WARM=${WARM:-30}
HERE=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd "$HERE/../../.." && pwd)
OUT=/tmp/h2cpu2/dials-$$; mkdir -p $OUT
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
export BENCH_TLS_CERT=/tmp/loomgate-bench/tls/cert.pem BENCH_TLS_KEY=/tmp/loomgate-bench/tls/key.pem
ulimit -n "$(ulimit -Hn)"
sed -e 's/18081/23081/; s/19901/23901/; s/18080/23080/' "$ROOT/bench/configs/gw-tls.yaml" > $OUT/gw.yaml
if [[ ${ACCESS:-0} == 1 ]]; then sed -i 's/^  enabled: false/  enabled: true\n  format: json/' $OUT/gw.yaml; fi
nice -n 10 taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:23080 -latency 100ms > /dev/null 2>&1 & BP=$!
nice -n 5 taskset -c 0 $JAVA -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -jar "$JAR" serve \
    --config $OUT/gw.yaml > $OUT/gw.log 2>&1 & P=$!
trap 'kill $P $BP 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:23080/hello && break; sleep 0.1; done
curl -s -o /dev/null http://127.0.0.1:23080/hello || { echo 'origin not up on 23080' >&2; exit 1; }
for _ in $(seq 300); do curl -sk -o /dev/null https://127.0.0.1:23081/hello && break; sleep 0.2; done
load() { timeout 100 nice -n 10 taskset -c 1 h2load -t1 -c200 -m10 -D"$1" https://127.0.0.1:23081/api/data 2>&1; }
snap() { # label: dials, errors by kind, open sockets of the gateway to the origin
    local m; m=$(curl -s http://127.0.0.1:23901/metrics)
    local fresh; fresh=$(awk '/^loomgate_upstream_acquired_total/ && /reused="false"/ { print $2 }' <<< "$m")
    local reused; reused=$(awk '/^loomgate_upstream_acquired_total/ && /reused="true"/ { print $2 }' <<< "$m")
    local errs; errs=$(awk '/^loomgate_upstream_errors_total/ && $2 > 0 { match($0, /kind="[^"]*"/); printf " %s=%s", substr($0, RSTART + 5, RLENGTH - 5), $2 }' <<< "$m")
    local socks; socks=$(ss -tn state established "( dport = :23080 )" | tail -n +2 | wc -l)
    printf '%-16s %s dials %s reused %s, origin sockets %s, errors:%s\n' "$1" "$(date -u +%T)" "$fresh" "$reused" "$socks" "$errs"
}
for ((l = WARM; l > 0; l -= 10)); do load 10 > /dev/null; done
sleep 3
snap "after warm-up"
for r in $(seq $RUNS); do
    snap "run $r start"
    load 10 > $OUT/h2load-$r.txt & LP=$!
    sleep 2; snap "run $r +2 s"
    wait $LP
    snap "run $r end"
    grep -E '^requests:|^finished in' $OUT/h2load-$r.txt | tr '\n' ' '; echo
    sleep 3; snap "run $r end+3 s"
done
echo "uptime: $(uptime)"
if [[ ${ACCESS:-0} == 1 ]]; then
    echo "access log: status counts"; grep -o '"http.response.status_code":[0-9]*' $OUT/gw.log | sort | uniq -c
    grep -o '"event.outcome":"[a-z]*"' $OUT/gw.log | sort | uniq -c
    grep -o '"loomgate.failure":"[a-z_]*"' $OUT/gw.log | sort | uniq -c
    grep -v '"http.response.status_code":200' $OUT/gw.log | grep '^{' | tail -1 | cut -c 1-900
fi
