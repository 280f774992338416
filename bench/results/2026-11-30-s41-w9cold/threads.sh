#!/usr/bin/env bash
# the live set while W9's 2,000 streams are in flight: class histogram (a full GC first) mid-load
set -u
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
sed -e 's/28181/28381/; s/28191/28391/; s/28180/28380/' /tmp/w9cold-hp/gateway.yaml > /tmp/w9cold-res/histo-gw.yaml
taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:28380 -latency 100ms > /dev/null 2>&1 & O=$!
export BENCH_TLS_CERT=/tmp/loomgate-bench/tls/cert.pem BENCH_TLS_KEY=/tmp/loomgate-bench/tls/key.pem
taskset -c 0 /tmp/w9cold-base/loomgate serve --config /tmp/w9cold-res/histo-gw.yaml > /tmp/w9cold-res/histo-gw.log 2>&1 & P=$!
for i in $(seq 100); do curl -sk -o /dev/null -m 2 https://127.0.0.1:28381/hello && break; sleep 0.3; done
nice -n 10 taskset -c 1 h2load -t1 -c200 -m10 -D30 https://127.0.0.1:28381/api/data > /tmp/w9cold-res/threads-h2load.txt 2>&1 & L=$!
sleep 25
$JAVA_HOME/bin/jcmd $P Thread.dump_to_file -format=text /tmp/w9cold-res/threads-during.txt 2>&1
wait $L
kill $P $O; wait
echo done
