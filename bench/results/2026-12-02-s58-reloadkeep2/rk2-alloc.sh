#!/usr/bin/env bash
# A/B pairs, alternating, for bench/alloc/run.sh; every shape once per pair
cd /work/wt/reloadkeep2
R=bench/results/2026-12-02-s58-reloadkeep2/configs
export WORK=/tmp/rk2-alloc ORIGIN_PORT=29880 PORT=29881 ADMIN_PORT=29891 NGHTTPD_PORT=29882 TOP=25
[[ -f /tmp/loomgate-alloc/ap/linux-x64/libasyncProfiler.so ]] && export AP=/tmp/loomgate-alloc/ap/linux-x64/libasyncProfiler.so
for pair in 1 2; do
  for cfg in "" w2-json-access w2-no-route w2-circuit-open; do
    for v in base after; do
      label=$v-${cfg:-plain}-p$pair
      if [[ -n $cfg ]]; then CFGFILE=$PWD/$R/$cfg.yaml bench/alloc/run.sh /tmp/rk2-jars/$v.jar $label w2; else bench/alloc/run.sh /tmp/rk2-jars/$v.jar $label w2; fi
    done
  done
done
