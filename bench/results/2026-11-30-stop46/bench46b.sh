#!/usr/bin/env bash
# stop 46, second W1/W2 round: after, before, before, after
for d in /tmp/s46after /tmp/s46before /tmp/s46before /tmp/s46after; do echo "=== w12 $d $(date -u +%T)"; /tmp/w12.sh $d; done
