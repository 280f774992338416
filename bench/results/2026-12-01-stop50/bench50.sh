#!/usr/bin/env bash
# stop 50: W1/W2 then W8/W9, before (de0aeeba: stop 49's code) and after (the merged head), alternated
for d in /tmp/s50before /tmp/s50after /tmp/s50after /tmp/s50before; do echo "=== w12 $d $(date -u +%T)"; /tmp/w12.sh $d; done
for d in /tmp/s50before /tmp/s50after /tmp/s50after /tmp/s50before /tmp/s50before /tmp/s50after; do echo "=== w89 $d $(date -u +%T)"; /tmp/w89.sh $d; done
echo "=== end $(date -u +%T)"
