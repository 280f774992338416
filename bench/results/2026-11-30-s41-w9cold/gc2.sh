#!/usr/bin/env bash
# young generation 16 MiB (the launcher's) against 48 MiB, alternated, base build, counted phases; GC logs per run
cd /tmp/w9cold-base
for r in 3; do
  for ny in 32 16 48; do
    echo "## young ${ny}m round $r"
    SHARED=/work/shared/bench WORK=/tmp/w9cold-hp PROXIES=launcher ROUNDS=1 MORE=3 COUNT=10000 WARM_RUNS=2 \
      LOOMGATE_JAVA_OPTS="-XX:NewSize=${ny}m -XX:MaxNewSize=${ny}m -Xlog:gc:file=/tmp/w9cold-res/gc-${ny}-$r.log" \
      nice -n 10 bench/harness-phases/run.sh w9 2>&1 | grep -v "^#\|^proxy"
  done
done
echo done
