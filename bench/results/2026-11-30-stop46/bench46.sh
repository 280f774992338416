#!/usr/bin/env bash
# stop 46: W1/W2 then W8/W9, before (b18a679) and after (5a5a921: the stop's request-path code), alternated before, after, after, before
for d in /tmp/s46before /tmp/s46after /tmp/s46after /tmp/s46before; do echo "=== w12 $d $(date -u +%T)"; /tmp/w12.sh $d; done
for d in /tmp/s46before /tmp/s46after /tmp/s46after /tmp/s46before; do echo "=== w89 $d $(date -u +%T)"; /tmp/w89.sh $d; done
