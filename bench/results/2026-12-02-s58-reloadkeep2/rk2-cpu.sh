#!/usr/bin/env bash
# CPU samples (async-profiler itimer) of the gateway over 6 s of wrk on one config: the share of samples under
# Throwable.fillInStackTrace and under ProxyHandler (the request path), per jar
CFG=$1
AP=/tmp/loomgate-alloc/ap/linux-x64/libasyncProfiler.so
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin
sed -e "s/18081/29881/; s/19901/29891/; s/18080/29880/" "$CFG" > /tmp/rk2-cpu.yaml
nice -n 10 taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:29880 -latency 0 > /dev/null 2>&1 & B=$!
for v in base after; do
  taskset -c 0 $J/java -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -jar /tmp/rk2-jars/$v.jar serve --config /tmp/rk2-cpu.yaml > /tmp/rk2-cpu-$v.log 2>&1 & P=$!
  for i in $(seq 150); do curl -s -o /dev/null http://127.0.0.1:29881/hello && break; sleep 0.2; done
  nice -n 10 taskset -c 1 wrk -t1 -c50 -d10s http://127.0.0.1:29881/hello > /dev/null 2>&1
  $J/jcmd $P JVMTI.agent_load $AP "\"start,event=itimer\"" > /dev/null
  out=$(nice -n 10 taskset -c 1 wrk -t1 -c50 -d6s http://127.0.0.1:29881/hello)
  $J/jcmd $P JVMTI.agent_load $AP "\"stop,file=/tmp/rk2-cpu-$v.collapsed,collapsed\"" > /dev/null
  n=$(echo "$out" | awk '/requests in/ {print $1}')
  python3 - "$v" "$n" /tmp/rk2-cpu-$v.collapsed <<'PY'
import sys
v, n, f = sys.argv[1], int(sys.argv[2]), sys.argv[3]
tot = fill = handler = 0
for line in open(f):
    stack, c = line.rsplit(' ', 1); c = int(c)
    tot += c
    if 'fillInStackTrace' in stack: fill += c
    if 'ProxyHandler.handle' in stack: handler += c
print(f"{v}: {n} requests; {tot} CPU samples, {tot*1e3/n:.2f} per 1000 requests; under fillInStackTrace {fill} ({100*fill/tot:.1f}%), under ProxyHandler.handle {handler} ({handler*1e3/n:.2f} per 1000 requests)")
PY
  kill $P; wait $P 2>/dev/null
done
kill $B
