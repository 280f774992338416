#!/bin/bash
# usage: prio.sh ROUNDS "modes" : like pairs.sh, but the carrier(s) and epoll-idle reniced to -10 for the windows
# (a stand-in for a quiet core 0: the poller's thread is woken without waiting behind other engineers' jobs)
cd /tmp/wake2
for r in $(seq $1); do for m in $2; do
  P=$(./start.sh $m); for i in $(seq 150); do curl -s -o /dev/null http://127.0.0.1:23481/hello && break; sleep 0.2; done
  for i in 1 2; do taskset -c 1 wrk -t1 -c50 -d10s http://127.0.0.1:23481/hello >/dev/null; done
  for t in /proc/$P/task/*; do c=$(cat $t/comm); case $c in ForkJoinPool*|epoll-idle) renice -n -10 -p ${t##*/} >/dev/null;; esac; done
  echo "== round $r block-millis $m $(date -u +%H:%M:%S) (carrier, epoll-idle at nice -10)"
  ./measure2.sh $P 4 6 | grep -E 'conns|ForkJoin|epoll-idle|system'
  ./measure2.sh $P 50 6 | grep -E 'conns|ForkJoin|epoll-idle|system'
  kill $P; wait $P 2>/dev/null; sleep 1
done; done
