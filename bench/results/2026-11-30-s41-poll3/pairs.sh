#!/bin/bash
# usage: pairs.sh N [jvm args]: N pairs, each a hand-over (0) and a blocking (1) run at the same time
n=$1; shift
for i in $(seq 1 $n); do
  ( ./dbg.sh p$i-0 0 "$@" & ./dbg.sh p$i-1 1 "$@" & wait )
  echo "pair $i done $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
done
