#!/usr/bin/env bash
# nmt.sh WAY: the gateway (launcher's flags, NMT summary) at start and idle after 20 s of /hello at 256 connections.
set -u
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java; W=/tmp/loomgate-startup
way=$1; extra=()
[[ $way == aot ]] && extra=(-XX:AOTCache=$W/gateway.aot -Xlog:aot=off -Dloomgate.aot-cache=$W/gateway.aot)
$J -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -XX:+ExitOnOutOfMemoryError -XX:NativeMemoryTracking=summary "${extra[@]}" \
   -jar $W/gateway.jar serve --config /tmp/nmt/gw.yaml --no-watch > /tmp/nmt/$way.log 2>&1 &
pid=$!
for i in $(seq 600); do curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:24381/hello 2>/dev/null | grep -q 200 && break; sleep 0.1; done
sleep 2
echo "== $way at start (after the first request): RSS $(grep VmRSS /proc/$pid/status)"
/usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd $pid VM.native_memory summary | sed -n '/^Total/,/^$/p;/^-/p' | grep -E "^Total|^-" 
$J -jar /tmp/aotx-full.jar load -c 256 -d 20s http://127.0.0.1:24381/hello 2>&1 | grep requests
sleep 5
echo "== $way idle after 20 s of load: RSS $(grep VmRSS /proc/$pid/status)"
/usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd $pid VM.native_memory summary | grep -E "^Total|^-"
kill $pid; wait $pid
