#!/usr/bin/env bash
# stop 48: W1 at 200 connections, before/after alternated three times (the main series read after higher twice)
for d in /tmp/s48after /tmp/s48before /tmp/s48before /tmp/s48after /tmp/s48after /tmp/s48before; do echo "=== w1c $d $(date -u +%T)"; /tmp/w1c.sh $d; done
echo "=== end $(date -u +%T)"
