#!/usr/bin/env bash
# usage: ab.sh SHAPE JAR "label:proxy:jvmargs" ... ; runs each in order, one round each, prints with the label
cd /work/wt/epollw8; export SHARED=/work/shared/bench
shape=$1; jar=$2; shift 2
for spec in "$@"; do
  IFS=: read -r label proxy args <<< "$spec"
  echo "== $label ($proxy $args) $(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)"
  JAR=$jar EPOLL_JVM_ARGS="$args" PROXIES=$proxy ROUNDS=1 bench/syscalls/run.sh $shape 2>&1 | sed "s/loomgate-epoll/$label/"
done
