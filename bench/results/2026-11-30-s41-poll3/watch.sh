#!/bin/bash
# usage: watch.sh javapid outfile : every 0.5 s, per carrier/epoll thread: state, cpu ticks, run-queue wait (schedstat)
pid=$1; out=$2
while kill -0 $pid 2>/dev/null; do
  line="$(date +%s.%N | cut -c1-14)"
  for t in /proc/$pid/task/*; do
    n=$(cat $t/comm 2>/dev/null)
    case "$n" in ForkJoinPool-1-*|epoll-idle|MasterPoller|ForkJoinPool*) ;; *) continue;; esac
    st=$(awk '{print $3, $14+$15}' $t/stat 2>/dev/null)
    ss=$(cat $t/schedstat 2>/dev/null)
    line="$line | $n $st $ss"
  done
  echo "$line" >> $out
  sleep 0.5
done
