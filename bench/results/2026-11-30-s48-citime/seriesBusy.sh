#!/usr/bin/env bash
# OriginProbeTest beside two busy loops (one per core), session 46's flake condition; the loops end by timeout.
cd /tmp/citime-work
for i in 1 2; do
  (sleep 12; exec timeout 70 nice -n 5 sh -c 'while :; do :; done') & b1=$!
  (sleep 12; exec timeout 70 nice -n 5 sh -c 'while :; do :; done') & b2=$!
  ./runclass.sh origin-A-busy$i OriginProbeTest -Dloomgate.originprobe.lanes=6
  wait $b1 $b2
done
echo done
