#!/usr/bin/env bash
# stop 51: base (stop 50's landed code, /tmp/s51head) against after (/tmp/s51after), alternated; then epoll
for d in /tmp/s51head /tmp/s51after; do echo "=== build $d $(date -u +%T)"; (cd $d && MAVEN_ARGS="-Dmaven.repo.local=/tmp/m2-ci11/repository" ./loomgate build 2>&1 | grep -E "aot-train:|ERROR|BUILD FAIL"); done
echo "=== w12 /tmp/s51after $(date -u +%T)"; /tmp/w12.sh /tmp/s51after
echo "=== w12 /tmp/s51head $(date -u +%T)"; /tmp/w12.sh /tmp/s51head
for d in /tmp/s51head /tmp/s51after /tmp/s51after /tmp/s51head; do echo "=== w89 $d $(date -u +%T)"; /tmp/w89.sh $d; done
echo "=== w89t /tmp/s51after epoll $(date -u +%T)"; /tmp/w89t.sh /tmp/s51after epoll
echo "=== end $(date -u +%T)"
