#!/usr/bin/env bash
# quick A/B of one config: warm 10 s, then 6 s of wrk -t1 -c50; requests and gateway CPU ticks per request
CFG=$1; shift
sed -e "s/18081/29881/; s/19901/29891/; s/18080/29880/" "$CFG" > /tmp/rk2-ab.yaml
nice -n 10 taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:29880 -latency 0 > /dev/null 2>&1 & B=$!
for pair in "$@"; do for v in base after; do
  taskset -c 0 /usr/lib/jvm/temurin-25-jdk-amd64/bin/java -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -jar /tmp/rk2-jars/$v.jar serve --config /tmp/rk2-ab.yaml > /tmp/rk2-ab-$v.log 2>&1 & P=$!
  for i in $(seq 150); do curl -s -o /dev/null http://127.0.0.1:29881/hello && break; sleep 0.2; done
  nice -n 10 taskset -c 1 wrk -t1 -c50 -d10s http://127.0.0.1:29881/hello > /dev/null 2>&1
  u0=$(awk '{ print $14 + $15 }' /proc/$P/stat)
  out=$(nice -n 10 taskset -c 1 wrk -t1 -c50 -d6s http://127.0.0.1:29881/hello)
  u1=$(awk '{ print $14 + $15 }' /proc/$P/stat)
  n=$(echo "$out" | awk '/requests in/ {print $1}'); lat=$(echo "$out" | awk '/Latency/ {print $2}')
  echo "$(date -u +%T) pair $pair $v: $n requests, latency avg $lat, CPU $(( (u1-u0)*10000000/n ))e-3 us/request, load $(cut -d' ' -f1 /proc/loadavg)"
  kill $P; wait $P 2>/dev/null
done; done
kill $B
