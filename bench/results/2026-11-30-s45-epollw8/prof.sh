#!/usr/bin/env bash
# usage: prof.sh <jar> <jdk|epoll> <cpu|wall> <outname>   (W8 shape: h2load -c100 -m10 /hello over h2c)
set -euo pipefail
JAR=$1 T=$2 EV=$3 NAME=$4
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
AP=/tmp/h2cpu/ap/linux-x64/libasyncProfiler.so
CFG=/work/wt/epollw8/bench/configs/gw-h2c.yaml
sed -e 's/18081/28181/; s/18080/28180/; s/19901/29901/' $CFG > /tmp/epollw8/prof/gw.yaml
[[ $T == epoll ]] && sed -i 's/^server:$/server:\n  transport: epoll/' /tmp/epollw8/prof/gw.yaml
taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:28180 -latency 100ms > /dev/null 2>&1 & O=$!
taskset -c 0 $JAVA -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints ${JVM_EXTRA:-} -jar $JAR serve --config /tmp/epollw8/prof/gw.yaml > /tmp/epollw8/prof/$NAME.log 2>&1 & P=$!
trap 'kill $P $O 2>/dev/null; wait 2>/dev/null' EXIT
for i in $(seq 100); do curl -s --http2-prior-knowledge -o /dev/null http://127.0.0.1:28181/hello && break; sleep 0.2; done
taskset -c 1 h2load -t1 -c100 -m10 -D${WARM:-45} http://127.0.0.1:28181/hello > /dev/null 2>&1 || true
opts="start,event=$EV,interval=${INTERVAL:-200us}"; [[ $EV == wall ]] && opts="start,event=wall,interval=${INTERVAL:-1ms},threads"
/usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd $P JVMTI.agent_load $AP "\"$opts\"" > /dev/null
u0=$(awk '{print $14}' /proc/$P/stat); s0=$(awk '{print $15}' /proc/$P/stat)
out=$(taskset -c 1 h2load -t1 -c100 -m10 -D15 http://127.0.0.1:28181/hello 2>&1 || true)
u1=$(awk '{print $14}' /proc/$P/stat); s1=$(awk '{print $15}' /proc/$P/stat)
/usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd $P JVMTI.agent_load $AP "\"stop,file=/tmp/epollw8/prof/$NAME.collapsed,collapsed\"" > /dev/null
n=$(awk '/^requests:/ { print $8 }' <<< "$out")
echo "$NAME: $n requests, CPU $(( (u1-u0+s1-s0)*10000/n )) us/req (user $(( (u1-u0)*10000/n )), sys $(( (s1-s0)*10000/n ))) load $(cut -d' ' -f1 /proc/loadavg)"
