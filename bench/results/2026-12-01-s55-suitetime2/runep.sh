#!/bin/bash
# runep.sh <label> <tree>: loomgate-epoll's classes and DatabaseEndpointTest, class times and span from the XMLs
cd $2 || exit 1
l0=$(cut -d' ' -f1 /proc/loadavg); t0=$(date +%T)
rm -rf loomgate-epoll/target/surefire-reports loomgate-lab/target/surefire-reports
JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 ./mvnw -B -o -Dmaven.repo.local=/tmp/m2-suitetime2/repository \
  -pl loomgate-epoll,loomgate-lab -am test '-Dtest=Epoll*Test,BlockTrialTest,DatabaseEndpointTest' \
  -Dsurefire.failIfNoSpecifiedTests=false > /tmp/st2/runep-$1.log 2>&1
rc=$?
l1=$(cut -d' ' -f1 /proc/loadavg)
echo "$1 start $t0 end $(date +%T) load $l0 -> $l1 rc=$rc"
python3 /work/wt/suitetime2/bench/results/2026-12-01-s52-suitetime/span.py loomgate-epoll/target/surefire-reports | sed "s/^/$1 epoll /"
python3 /work/wt/suitetime2/bench/results/2026-12-01-s52-suitetime/span.py loomgate-lab/target/surefire-reports | sed "s/^/$1 lab /"
grep -h -o 'testcase name="[^"]*" classname="[^"]*DatabaseEndpointTest" time="[^"]*"' loomgate-lab/target/surefire-reports/*.xml | sed "s/^/$1 /"
mkdir -p /tmp/st2/epxml-$1; cp -p loomgate-epoll/target/surefire-reports/*.xml loomgate-lab/target/surefire-reports/*.xml /tmp/st2/epxml-$1/ 2>/dev/null
