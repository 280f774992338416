#!/usr/bin/env bash
# W9's shape (h2 over TLS, Conscrypt, h2load -c100 -m10 /hello, instant origin) with async-profiler's CPU sampling
# on the gateway, attached after a warm-up: bench/alloc's w9 config and certificate, the same pinning.
set -uo pipefail
W=/tmp/h2idle-alloc/w9-head; OUT=/tmp/h2idle-cpu; mkdir -p $OUT
AP=/tmp/loomgate-alloc/ap/linux-x64/libasyncProfiler.so
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java; JCMD=/usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd
export BENCH_TLS_CERT=/tmp/h2idle-alloc/certs/cert.pem BENCH_TLS_KEY=/tmp/h2idle-alloc/certs/key.pem
pids=()
trap 'for p in "${pids[@]}"; do kill $p 2>/dev/null; done' EXIT
nice -n 5 taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:29530 -latency 0 >/dev/null 2>&1 & pids+=($!)
taskset -c 0 $JAVA -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -jar /tmp/h2idle-head/loomgate-gateway.jar serve --config $W/gw.yaml > $OUT/gw.log 2>&1 & GW=$!; pids+=($GW)
for i in $(seq 150); do curl -sk -o /dev/null https://127.0.0.1:29531/hello && break; sleep 0.2; done
timeout 100 nice -n 5 taskset -c 1 h2load -t1 -c100 -m10 -D25 https://127.0.0.1:29531/hello > $OUT/warm.txt 2>&1
$JCMD $GW JVMTI.agent_load $AP "\"start,event=cpu,interval=1ms\"" > $OUT/jcmd-start.txt 2>&1
timeout 100 nice -n 5 taskset -c 1 h2load -t1 -c100 -m10 -D15 https://127.0.0.1:29531/hello > $OUT/load.txt 2>&1
$JCMD $GW JVMTI.agent_load $AP "\"stop,file=$OUT/cpu.collapsed,collapsed\"" > $OUT/jcmd-stop.txt 2>&1
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"; grep -E "^finished|requests:" $OUT/load.txt
