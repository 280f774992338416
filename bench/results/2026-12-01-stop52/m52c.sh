#!/usr/bin/env bash
while pgrep -f m52.sh > /dev/null; do sleep 5; done
for d in /tmp/s52base /tmp/s52nogate; do echo "=== w12 $d $(date -u +%T)"; /tmp/w12.sh $d; done
echo "=== end $(date -u +%T)"
