#!/usr/bin/env bash
# stop 53: W1/W2 then W8/W9, stop 52's code (s53base, its training fixed at two rounds) against this stop's (s53after), alternated
cd /work/main
LOG=/tmp/m53-w12.log bench/pairs/run.sh w12 /tmp/s53base /tmp/s53after /tmp/s53after /tmp/s53base
LOG=/tmp/m53-w89.log bench/pairs/run.sh w89 /tmp/s53after /tmp/s53base /tmp/s53base /tmp/s53after
echo "=== end $(date -u +%T)"
