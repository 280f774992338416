#!/bin/bash
# usage: abpairs.sh N [jvm args]: N pairs at the same time, block-millis 1: unfixed (dbg.sh) beside fixed (fix.sh)
n=$1; shift
for i in $(seq 1 $n); do
  ( ./dbg.sh u$i 1 "$@" & ./fix.sh x$i 1 "$@" & wait )
done
