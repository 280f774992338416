#!/bin/bash
# usage: pairs.sh ROUNDS "modes" ; interleaved: each mode started fresh, warmed 20 s at c50, then c50 and c4 windows of 8 s
cd /tmp/wake2
for r in $(seq $1); do for m in $2; do
  P=$(./start.sh $m); for i in $(seq 150); do curl -s -o /dev/null http://127.0.0.1:23481/hello && break; sleep 0.2; done
  for i in 1 2; do taskset -c 1 wrk -t1 -c50 -d10s http://127.0.0.1:23481/hello >/dev/null; done
  echo "== round $r block-millis $m $(date -u +%H:%M:%S)"
  ./measure.sh $P 50 8 | grep -E 'conns|ForkJoin|epoll-idle'
  ./measure.sh $P 4 8 | grep -E 'conns|ForkJoin|epoll-idle'
  kill $P; wait $P 2>/dev/null; sleep 1
done; done
