#!/usr/bin/env bash
# W9, W8 and W2 (plain, h2load --h1 at 256 connections) with a fixed number of requests per phase, the launcher's
# young generation 16 MiB (its defaults) against 24, 32, 48 MiB (-Xms = young + 16 MiB, as the default's 32 = 16 + 16)
cd /work/wt/youngen
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export SHARED=/work/shared/bench
v() { echo "-Xms$(($1 + 16))m -XX:NewSize=$1m -XX:MaxNewSize=$1m"; }
for shape in w9 w8 w2; do
  d=/tmp/yg/$shape
  export OPTS_opt16="-Xlog:gc*:file=$d/opt16-%p.log"
  for s in 24 32 48; do export OPTS_opt$s="$(v $s) -Xlog:gc*:file=$d/opt$s-%p.log"; done
  case $shape in
    w9) COUNT=10000 WARM_RUNS=2 MORE=3 ;;
    w8) COUNT=20000 WARM_RUNS=2 MORE=3 ;;
    w2) COUNT=20000 WARM_RUNS=5 MORE=0 ;;
  esac
  sh=$shape; [[ $shape == w2 ]] && sh=plain
  echo "=== $shape $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
  COUNT=$COUNT WARM_RUNS=$WARM_RUNS MORE=$MORE ROUNDS=2 PROXIES="opt16 opt24 opt32 opt48" WORK=/tmp/yg/hp-$shape \
    nice -n 0 bench/harness-phases/run.sh $sh
done
echo "=== done $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
