#!/usr/bin/env bash
# A hand-made AOT cache for the experiment: the gateway jar of checkout $1 with the launcher's flags, trained by wrk
# (plain HTTP/1.1 keep-alive, /hello and /api/data) and h2load (h2c, prior knowledge) through a plain listener on
# 127.0.0.1:24081 (http2 on) to the harness's origin binary on 24080; writes $2. TRAIN_S seconds of each.
set -u
d=$1 out=$2 T=${TRAIN_S:-3}
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
W=/tmp/w3train; mkdir -p $W
cat > $W/plain.yaml <<YAML
server: { address: 127.0.0.1, port: 24081, max-connections: 10000, http2: { enabled: true } }
admin: { port: 24901 }
access-log: { enabled: false }
routes:
  - { id: origin, uri: "http://127.0.0.1:24080", predicates: [ "Path=/**" ] }
YAML
/tmp/loomgate-bench/bin/backend -addr 127.0.0.1:24080 -latency 100ms > $W/origin.log 2>&1 & O=$!
F=(-Xmx176m -Xms32m -XX:NewSize=16m -XX:MaxNewSize=16m -XX:+UseSerialGC -XX:ReservedCodeCacheSize=64m
    -XX:MaxMetaspaceSize=128m -XX:FlightRecorderOptions=memorysize=2m -XX:TrimNativeHeapInterval=5000
    -XX:+UseCompactObjectHeaders)
t0=$(date +%s.%N)
rm -f $out
$J -XX:+ExitOnOutOfMemoryError "${F[@]}" -XX:AOTCacheOutput=$out -jar $d/loomgate-cli/target/loomgate-gateway.jar serve --config $W/plain.yaml --no-watch > $W/gw.log 2>&1 & G=$!
for i in $(seq 100); do curl -s -o /dev/null -m 1 http://127.0.0.1:24081/hello && break; sleep 0.1; done
wrk -t1 -c64 -d${T}s http://127.0.0.1:24081/hello | grep Requests/sec
wrk -t1 -c200 -d${T}s http://127.0.0.1:24081/api/data | grep Requests/sec
h2load -c32 -m10 -D$T http://127.0.0.1:24081/hello | grep -E "^finished|^requests"
h2load -c64 -m10 -D$T http://127.0.0.1:24081/api/data | grep -E "^finished|^requests"
/tmp/loomgate-bench/bin/holdconns -addr 127.0.0.1:24081 -n ${BURST:-3000} -hold 1s | tail -1
kill -TERM $G; wait $G; echo "gateway exit $?"
kill $O
echo "trained in $(awk -v a=$t0 -v b=$(date +%s.%N) 'BEGIN{printf "%.1f", b-a}') s; $(ls -la $out)"
