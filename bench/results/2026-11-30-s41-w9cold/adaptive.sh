#!/usr/bin/env bash
while ! grep -q "^done" /tmp/w9cold-res/noaot.txt; do sleep 5; done
cd /tmp/w9cold-base
for v in "-XX:MaxNewSize=48m" "-XX:MaxNewSize=16m"; do
    echo "## $v"
    SHARED=/work/shared/bench WORK=/tmp/w9cold-hp2 ORIGIN_PORT=28280 PORT=28281 ADMIN_PORT=28291 PROXIES=launcher ROUNDS=1 MORE=3 COUNT=10000 WARM_RUNS=2 \
      LOOMGATE_JAVA_OPTS="$v -Xlog:gc*:file=/tmp/w9cold-res/gc-adaptive${v#*=}.log" \
      nice -n 10 bench/harness-phases/run.sh w9 2>&1 | grep -v "^#\|^proxy"
done
echo done
