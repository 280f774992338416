#!/usr/bin/env bash
# usage: ab2.sh SHAPE JAR "label:jvmargs" ... ; epoll runs with stats; prints counts + stats deltas of the last 10 s
cd /work/wt/epollw8; export SHARED=/work/shared/bench
shape=$1; jar=$2; shift 2
for spec in "$@"; do
  IFS=: read -r label args <<< "$spec"
  proxy=loomgate-epoll; [[ $label == jdk* ]] && proxy=loomgate; [[ $label == haproxy* ]] && proxy=haproxy
  echo "== $label ($proxy $args) $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
  JAR=$jar JVM_ARGS="$args" EPOLL_JVM_ARGS="-Dloomgate.epoll.stats=true $args" PROXIES=$proxy ROUNDS=1 bench/syscalls/run.sh $shape 2>&1 | sed "s/round 1 $proxy/round 1 $label/"
  if [[ $proxy == loomgate-epoll ]]; then grep epoll-stats /tmp/syscalls.loomgate-epoll.log | tail -3 | awk 'NR==1{for(i=2;i<=NF;i+=2)a[$i]=$(i+1)} NR==3{s="    poller over the last 10 s:"; for(i=2;i<=NF;i+=2) s=s" "$i" "($(i+1)-a[$i]); print s}'; fi
done
