#!/bin/bash
# usage: fixpairs.sh N tag [jvm args]: N pairs on the fixed poller, blocking (1) and hand-over (0) at the same time
n=$1; tag=$2; shift 2
for i in $(seq 1 $n); do
  ( ./fix.sh $tag$i-1 1 "$@" & ./fix.sh $tag$i-0 0 "$@" & wait )
done
