#!/usr/bin/env bash
# Stop 36's harness pair: stop 35's head (before) vs this stop's merged jar (after), W1(2000)/W2/W8 beside HAProxy.
set -u
cd /work/wt/integ
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
OUT=/work/notes/s36/results
mkdir -p $OUT
for v in ${VARIANTS:-before after}; do
  jar=/work/base/gateway-s36.jar; [[ $v == before ]] && jar=/work/base/gateway-head.jar
  echo "== $v: $jar (load $(cut -d' ' -f1-3 /proc/loadavg))" >> $OUT/harness-$v.txt
  PROXY_NAME=loomgate-$v \
  PROXY_CMD="$J -jar $jar serve --config $PWD/bench/configs/gateway-bench.yaml" \
  PROXY_CMD_H2C="$J -jar $jar serve --config $PWD/bench/configs/gw-h2c.yaml" \
  PROXIES="haproxy-t1 loomgate-$v" WORKLOADS="${WORKLOADS:-W1 W2 W8}" W1_CONNS="2000" REPEAT=1 WARM_MAX=60 \
  /work/shared/bench/run.sh >> $OUT/harness-$v.txt 2>&1
done
echo done >> $OUT/DONE
