#!/usr/bin/env bash
# stop 48: W1/W2 then W8/W9, before (91524b8: stop 47's code) and after (668686a5: every branch merged), alternated; then W8/W9 on epoll (after)
for d in /tmp/s48before /tmp/s48after /tmp/s48after /tmp/s48before; do echo "=== w12 $d $(date -u +%T)"; /tmp/w12.sh $d; done
for d in /tmp/s48before /tmp/s48after /tmp/s48after /tmp/s48before; do echo "=== w89 $d $(date -u +%T)"; /tmp/w89.sh $d; done
echo "=== w89t epoll /tmp/s48after $(date -u +%T)"; /tmp/w89t.sh /tmp/s48after epoll
echo "=== end $(date -u +%T)"
