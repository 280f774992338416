#!/usr/bin/env bash
# stop 50: three more W8/W9 pairs, alternated after, before, before, after, after, before
for d in /tmp/s50after /tmp/s50before /tmp/s50before /tmp/s50after /tmp/s50after /tmp/s50before; do echo "=== w89 $d $(date -u +%T)"; /tmp/w89.sh $d; done
echo "=== end $(date -u +%T)"
