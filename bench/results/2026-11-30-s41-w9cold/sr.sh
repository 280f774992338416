#!/usr/bin/env bash
# the launcher's 16 MiB young generation with the default survivor ratio (8) against 2 and 1, alternated
cd /tmp/w9cold-base
for v in "-XX:SurvivorRatio=8" "-XX:SurvivorRatio=2" "-XX:SurvivorRatio=1"; do
    echo "## $v"
    SHARED=/work/shared/bench WORK=/tmp/w9cold-hp2 ORIGIN_PORT=28280 PORT=28281 ADMIN_PORT=28291 PROXIES=launcher ROUNDS=1 MORE=3 COUNT=10000 WARM_RUNS=2 \
      LOOMGATE_JAVA_OPTS="$v -Xlog:gc:file=/tmp/w9cold-res/gc-sr${v#*=}.log" \
      nice -n 10 bench/harness-phases/run.sh w9 2>&1 | grep -v "^#\|^proxy"
done
echo done
