#!/usr/bin/env bash
# The main pass's two probe classes in the two test JVMs beside two busy loops (one per core); loops end by timeout.
cd /tmp/citime-work
R=/work/wt/citime/bench/results/2026-11-30-s48-citime
for i in 1 2; do
  (sleep 10; exec timeout 75 nice -n 5 sh -c 'while :; do :; done') & b1=$!
  (sleep 10; exec timeout 75 nice -n 5 sh -c 'while :; do :; done') & b2=$!
  ./runclass.sh pair-busy$i 'OriginProbeTest,HostileProbeTest'
  for c in OriginProbeTest HostileProbeTest; do cp /work/wt/citime/loomgate-cli/target/surefire-reports/TEST-*.$c.xml $R/pair-busy$i-$c.xml; grep -m1 -o 'time="[^"]*" tests="[^"]*" errors="[^"]*" skipped="[^"]*" failures="[^"]*"' $R/pair-busy$i-$c.xml | sed "s/^/pair-busy$i $c /"; done
  wait $b1 $b2
done
echo done
