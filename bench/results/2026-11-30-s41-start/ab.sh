#!/usr/bin/env bash
# interleaved A/B: base vs new, $1 alternations
cd /work/wt/start150
for i in $(seq 1 ${1:-2}); do
  for x in base new; do
    echo "=== $x alternation $i"
    WORK=/tmp/su-$x-w ROUNDS=3 WAYS="none aot" JAR=/tmp/su-$x/gateway.jar FULL_JAR=/tmp/su-base/full.jar nice -n 10 bench/startup/run.sh 2>&1 | grep -v INFO
  done
done
