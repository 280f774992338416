#!/bin/bash
# usage: run.sh MODE(aot|plain) PROVIDER JAR AOTFILE OUT
MODE=$1; P=$2; JAR=$3; AOT=$4; OUT=$5
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
FLAGS=(-XX:+ExitOnOutOfMemoryError -Xmx176m -Xms40m -XX:NewSize=24m -XX:MaxNewSize=24m -XX:SurvivorRatio=2 -XX:TargetSurvivorRatio=90 -XX:+UseSerialGC -XX:ReservedCodeCacheSize=64m -XX:MaxMetaspaceSize=128m -XX:FlightRecorderOptions=memorysize=2m -XX:TrimNativeHeapInterval=1000 -XX:+UseCompactObjectHeaders)
[[ $MODE == aot ]] && FLAGS+=(-XX:AOTCache=$AOT -Xlog:aot=off -Dloomgate.aot-cache=$AOT)
LOG=/tmp/flaky-cold/logs/gw-$MODE-$P-$(date +%H%M%S).log; mkdir -p /tmp/flaky-cold/logs
$J "${FLAGS[@]}" -jar $JAR serve --config /tmp/flaky-cold/gw-$P.yaml > $LOG 2>&1 &
PID=$!
t0=$(date +%s%N)
for i in $(seq 1 600); do curl -s -o /dev/null http://127.0.0.1:18977/health/ready && break; sleep 0.05; done
ready=$(( ($(date +%s%N)-t0)/1000000 ))
a=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' http://127.0.0.1:18080/a/)
b=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' http://127.0.0.1:18080/b/)
m=$(curl -s http://127.0.0.1:18977/metrics | grep -E '^loomgate_upstream_connect_seconds_(sum|count)' | tr '\n' ' ')
kill $PID; wait $PID 2>/dev/null
aotline=$(grep -i 'aot' $LOG | head -1 | cut -c1-120)
echo "$(date -u +%T) load=$(cut -d' ' -f1 /proc/loadavg) mode=$MODE provider=$P ready_ms=$ready first_a=[$a] second_b=[$b] $m | $aotline | $(grep -m1 -o "502 upstream.*" $LOG | cut -c1-200) | log=$LOG" >> $OUT
