#!/usr/bin/env bash
# stop 49: four more W8/W9 pairs, before (64c22d61) and after (22f2b63b's code), alternated after, before, before, after
for d in /tmp/s49after /tmp/s49before /tmp/s49before /tmp/s49after /tmp/s49after /tmp/s49before; do echo "=== w89 $d $(date -u +%T)"; /tmp/w89.sh $d; done
echo "=== end $(date -u +%T)"
