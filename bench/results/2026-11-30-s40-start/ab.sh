#!/usr/bin/env bash
# A/B of bench/startup/run.sh: before (main's jars) and after (this branch's), one round each in turn
cd /work/wt/start40
for r in ${RS:-1 2 3 4}; do
  for side in base after; do
    echo "== $side round $r"
    ROUNDS=1 WAYS="none aot" JAR=/tmp/start40-$side/loomgate-gateway.jar FULL_JAR=/tmp/start40-$side/loomgate.jar \
      WORK=/tmp/s40-$side nice bench/startup/run.sh 2>&1 | grep -E "^round|^# 20|load after|AOT cache|aot-train"
  done
done
