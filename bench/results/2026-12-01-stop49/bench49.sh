#!/usr/bin/env bash
# stop 49: W1/W2 then W8/W9, before (64c22d61: stop 48's code) and after (22f2b63b: every branch merged), alternated; then W8/W9 on epoll (after)
for d in /tmp/s49before /tmp/s49after /tmp/s49after /tmp/s49before; do echo "=== w12 $d $(date -u +%T)"; /tmp/w12.sh $d; done
for d in /tmp/s49before /tmp/s49after /tmp/s49after /tmp/s49before; do echo "=== w89 $d $(date -u +%T)"; /tmp/w89.sh $d; done
echo "=== w89t epoll /tmp/s49after $(date -u +%T)"; /tmp/w89t.sh /tmp/s49after epoll
echo "=== end $(date -u +%T)"
