#!/bin/bash
# runfs.sh <label> <forks>: the default failsafe pass alone (after package), its span and classes from the XMLs
cd /tmp/st2/tree$3 || exit 1
l0=$(cut -d' ' -f1 /proc/loadavg); t0=$(date +%T)
rm -rf loomgate-cli/target/failsafe-reports
JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 ./mvnw -B -o -Dmaven.repo.local=/tmp/m2-suitetime2/repository \
  -pl loomgate-cli -am package failsafe:integration-test -Dtest=NoSuchTest -Dloomgate.it.forks=$2 -Dtest=NoSuchTest \
  -Dsurefire.failIfNoSpecifiedTests=false > /tmp/st2/runfs-$1.log 2>&1
rc=$?
l1=$(cut -d' ' -f1 /proc/loadavg)
echo "$1 forks=$2 start $t0 end $(date +%T) load $l0 -> $l1 rc=$rc"
python3 /work/wt/suitetime2/bench/results/2026-12-01-s52-suitetime/span.py loomgate-cli/target/failsafe-reports | sed "s/^/$1 /"
mkdir -p /tmp/st2/fsxml-$1; cp -p loomgate-cli/target/failsafe-reports/*.xml /tmp/st2/fsxml-$1/ 2>/dev/null
