#!/usr/bin/env bash
# stop 52: builds on the quiet machine, then W1/W2 with and without StartGate (alternated), W8/W9 stop 51's code
# against this stop's (alternated)
for d in /tmp/s52gate /tmp/s52nogate /tmp/s52nogate /tmp/s52gate; do echo "=== w12 $d $(date -u +%T)"; /tmp/w12.sh $d; done
for d in /tmp/s52base /tmp/s52gate /tmp/s52gate /tmp/s52base; do echo "=== w89 $d $(date -u +%T)"; /tmp/w89.sh $d; done
echo "=== end $(date -u +%T)"
