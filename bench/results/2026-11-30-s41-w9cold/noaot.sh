#!/usr/bin/env bash
while ! grep -q '^done' /tmp/w9cold-res/gc2.txt; do sleep 5; done
cd /tmp/w9cold-base
SHARED=/work/shared/bench WORK=/tmp/w9cold-hp PROXIES="launcher-noaot launcher" ROUNDS=1 MORE=3 COUNT=10000 WARM_RUNS=2 COMPILES=1 \
  nice -n 10 bench/harness-phases/run.sh w9 2>&1
echo done
