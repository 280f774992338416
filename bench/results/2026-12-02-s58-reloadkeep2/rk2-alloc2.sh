#!/usr/bin/env bash
cd /work/wt/reloadkeep2
R=bench/results/2026-12-02-s58-reloadkeep2/configs
export WORK=/tmp/rk2-alloc2 ORIGIN_PORT=29880 PORT=29881 ADMIN_PORT=29891 NGHTTPD_PORT=29882 TOP=25
export AP=/tmp/loomgate-alloc/ap/linux-x64/libasyncProfiler.so
for pair in 3 4; do
  for v in base after; do
    CFGFILE=$PWD/$R/w2-json-access.yaml bench/alloc/run.sh /tmp/rk2-jars/$v.jar $v-w2-json-access-p$pair w2
  done
done
