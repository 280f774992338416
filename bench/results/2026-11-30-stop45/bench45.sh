#!/usr/bin/env bash
# stop 45: W1/W2 then W8, before (a8e0fed) and after (the stop's head), alternated before, after, after, before
for d in /tmp/s45before /tmp/s45after /tmp/s45after /tmp/s45before; do echo "=== w12 $d $(date -u +%T)"; /tmp/w12.sh $d; done
for d in /tmp/s45before /tmp/s45after /tmp/s45after /tmp/s45before; do echo "=== w8 $d $(date -u +%T)"; /tmp/w8.sh $d; done
