#!/usr/bin/env bash
# fdcalls.sh PROXY SHAPE: the system calls of one proxy per request, split by the socket they are made on (client
# side: local port 23081; origin side: remote port 23080; other: epoll, eventfd, ...) with their sizes and results
# (EAGAIN: a read that found nothing). PROXY: loomgate (JAR=...) or haproxy; SHAPE: w8 (h2c /hello, -c100 -m10,
# instant origin) or w9 (h2 over TLS /api/data, -c200 -m10, 100 ms origin; CFG=... another gateway config). Proxy
# on core 0, load and origin on core 1. After WARM seconds of load, perf records the read/write family and
# epoll_ctl with their arguments over one whole h2load -n N run (default 30,000; its 100-200 new client connections included); fdcalls.py sums them up.
set -uo pipefail
PROXY=$1; SHAPE=$2; WARM=${WARM:-40}; SECS=${SECS:-3}
HERE=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd "$HERE/../../.." && pwd)
OUT=/tmp/h2cpu2/fd-$PROXY-$SHAPE-$$; mkdir -p $OUT
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
export BENCH_TLS_CERT=/tmp/loomgate-bench/tls/cert.pem BENCH_TLS_KEY=/tmp/loomgate-bench/tls/key.pem
export BENCH_TLS_PEM=/tmp/loomgate-bench/tls/bench.pem
ulimit -n "$(ulimit -Hn)"
if [[ $SHAPE == w8 ]]; then
    LAT=0; URL=http://127.0.0.1:23081/hello; C=100; GWC=$ROOT/bench/configs/gw-h2c.yaml; HAP=haproxy-t1-h2c.cfg
else
    LAT=100ms; URL=https://127.0.0.1:23081/api/data; C=200; GWC=${CFG:-$ROOT/bench/configs/gw-tls.yaml}; HAP=haproxy-t1-tls.cfg
fi
nice -n 10 taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:23080 -latency $LAT > /dev/null 2>&1 & BP=$!
if [[ $PROXY == haproxy ]]; then
    sed -e 's/18081/23081/; s/18080/23080/; s|pidfile .*|pidfile '$OUT'/hap.pid|' /work/shared/bench/peers/$HAP > $OUT/hap.cfg
    nice -n 5 taskset -c 0 haproxy -db -f $OUT/hap.cfg > $OUT/proxy.log 2>&1 & P=$!
else
    sed -e 's/18081/23081/; s/19901/23901/; s/18080/23080/' "$GWC" > $OUT/gw.yaml
    nice -n 5 taskset -c 0 $JAVA -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders ${JVM_EXTRA:-} -jar "$JAR" serve \
        --config $OUT/gw.yaml > $OUT/proxy.log 2>&1 & P=$!
fi
trap 'kill $P $BP 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:23080/hello && break; sleep 0.1; done
curl -s -o /dev/null http://127.0.0.1:23080/hello || { echo 'origin not up on 23080' >&2; exit 1; }
for _ in $(seq 300); do
    curl -sk -o /dev/null $URL && break; curl -s --http2-prior-knowledge -o /dev/null $URL && break; sleep 0.2
done
h2() { timeout 100 nice -n 10 taskset -c 1 h2load -t1 -c$C -m10 "$@" $URL 2>&1; }
for ((l = WARM; l > 0; l -= 10)); do h2 -D10 > /dev/null; done
h2 -n${N:-30000} > /dev/null # ends with every stream answered: the next run re-dials nothing
ls -l /proc/$P/fd 2>/dev/null | awk '/socket:/ { split($NF, a, /[][]/); print $(NF-2), a[2] }' > $OUT/fds
cat /proc/net/tcp /proc/net/tcp6 > $OUT/tcp
EV=""; for s in read write recvfrom sendto readv writev epoll_ctl; do EV="$EV,syscalls:sys_enter_$s,syscalls:sys_exit_$s"; done
perf record -q -e "${EV#,}" -p $P -o $OUT/perf.data 2> /dev/null & PP=$!
sleep 1
h2 -n${N:-30000} > $OUT/h2load.txt & LP=$!
sleep 1.5 # the run's own client connections, mid-run
ls -l /proc/$P/fd 2>/dev/null | awk '/socket:/ { split($NF, a, /[][]/); print $(NF-2), a[2] }' >> $OUT/fds
cat /proc/net/tcp /proc/net/tcp6 >> $OUT/tcp
wait $LP
kill -INT $PP; wait $PP
perf script -i $OUT/perf.data -F tid,event,trace 2> /dev/null > $OUT/perf.txt
n=$(awk '/^requests:/ { print $8 }' $OUT/h2load.txt)
echo "$PROXY $SHAPE ${JAR:-} $(date -u +%T) $(uptime | sed 's/.*load/load/'); h2load -n: $n requests traced, $(grep -E '^finished' $OUT/h2load.txt)"
python3 $HERE/fdcalls.py $OUT/perf.txt $OUT/fds $OUT/tcp $n 23081 23080
