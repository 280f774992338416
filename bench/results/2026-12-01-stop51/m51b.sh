#!/usr/bin/env bash
for d in /tmp/s51after /tmp/s51head /tmp/s51head /tmp/s51after; do echo "=== w89 $d $(date -u +%T)"; /tmp/w89.sh $d; done
echo "=== end $(date -u +%T)"
