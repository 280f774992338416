#!/usr/bin/env bash
# W9 and W8 with a fixed number of requests per phase (bench/harness-phases/run.sh, COUNT), the launcher's young
# generation (16 MiB, survivors 1.6 MiB each) against shapes with larger survivors; every JVM's
# -Xlog:gc*,gc+age=trace kept in gclogs/<shape>/<variant>-<pid>.log. SHAPES, ROUNDS, VARIANTS from the environment.
set -u
cd /work/wt/w9gc
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export SHARED=/work/shared/bench
R=$PWD/bench/results/2026-12-01-s49-w9gc
declare -A V=(
  [d16]=""   # the launcher's defaults: 16 MiB when runs 1-2 ran, 24 MiB SurvivorRatio=2 TargetSurvivorRatio=90 since (run 3: def)
  [def]=""
  [old16]="-Xms32m -XX:NewSize=16m -XX:MaxNewSize=16m"
  [y20r3t]="-Xms36m -XX:NewSize=20m -XX:MaxNewSize=20m -XX:SurvivorRatio=3 -XX:TargetSurvivorRatio=90"
  [r4]="-Xms32m -XX:NewSize=16m -XX:MaxNewSize=16m -XX:SurvivorRatio=4"
  [r2]="-Xms32m -XX:NewSize=16m -XX:MaxNewSize=16m -XX:SurvivorRatio=2"
  [y24r2]="-Xms40m -XX:NewSize=24m -XX:MaxNewSize=24m -XX:SurvivorRatio=2"
  [y24r2t]="-Xms40m -XX:NewSize=24m -XX:MaxNewSize=24m -XX:SurvivorRatio=2 -XX:TargetSurvivorRatio=90"
  [y28r2t]="-Xms44m -XX:NewSize=28m -XX:MaxNewSize=28m -XX:SurvivorRatio=2 -XX:TargetSurvivorRatio=90"
  [par1]="-XX:+UseParallelGC -XX:ParallelGCThreads=1 -Xms32m -XX:NewSize=16m -XX:MaxNewSize=16m"
  [y32r2]="-Xms48m -XX:NewSize=32m -XX:MaxNewSize=32m -XX:SurvivorRatio=2"
)
VARIANTS=${VARIANTS:-"d16 r4 r2 y24r2"}
for shape in ${SHAPES:-w9 w8}; do
  d=$R/gclogs/$shape; mkdir -p "$d"
  names=""
  for v in $VARIANTS; do export "OPTS_opt$v=${V[$v]} -Xlog:gc*,gc+age=trace:file=$d/$v-%p.log"; names+=" opt$v"; done
  case $shape in
    w9) COUNT=${W9COUNT:-10000} ;;
    w8) COUNT=20000 ;;
  esac
  echo "=== $shape $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
  COUNT=$COUNT WARM_RUNS=2 MORE=3 ROUNDS=${ROUNDS:-2} PROXIES="$names" WORK=/tmp/w9gc/hp-$shape \
    bench/harness-phases/run.sh $shape
done
echo "=== done $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
