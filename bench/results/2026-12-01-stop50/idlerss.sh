#!/usr/bin/env bash
# idle RSS of the launcher's gateway: at ready, and idle after 10 s of wrk (256 conns /hello); alternated checkouts
for d in /tmp/s50before /tmp/s50after /tmp/s50before /tmp/s50after /tmp/s50before /tmp/s50after; do
  cd $d
  taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:18080 -latency 0 >/dev/null 2>&1 & B=$!
  t0=$(date +%s%N)
  taskset -c 0 ./loomgate serve --config bench/configs/gateway-bench.yaml > /tmp/idlerss-gw.log 2>&1 & P=$!
  for _ in $(seq 200); do curl -s -o /dev/null http://127.0.0.1:18081/hello && break; sleep 0.05; done
  t1=$(date +%s%N)
  pid=$(pgrep -f "gateway-bench.yaml" | grep -v $P | head -1); pid=$(pgrep -n java)
  r0=$(awk '/VmRSS/{print $2}' /proc/$pid/status)
  taskset -c 1 wrk -t1 -c256 -d10s http://127.0.0.1:18081/hello > /dev/null 2>&1
  sleep 3
  r1=$(awk '/VmRSS/{print $2}' /proc/$pid/status)
  echo "$d first-200 $(( (t1-t0)/1000000 )) ms (incl. launcher), rss at ready $r0 kB, idle after 10 s wrk $r1 kB, load $(cut -d' ' -f1 /proc/loadavg)"
  kill $P $B; wait 2>/dev/null; sleep 1
done
