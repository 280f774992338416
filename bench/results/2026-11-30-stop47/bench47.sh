#!/usr/bin/env bash
# stop 47: W1/W2 then W8/W9, before (35c8c17: stop 46's code) and after (7216d1c: every branch merged), alternated before, after, after, before
for d in /tmp/s47before /tmp/s47after /tmp/s47after /tmp/s47before; do echo "=== w12 $d $(date -u +%T)"; /tmp/w12.sh $d; done
for d in /tmp/s47before /tmp/s47after /tmp/s47after /tmp/s47before; do echo "=== w89 $d $(date -u +%T)"; /tmp/w89.sh $d; done
