#!/bin/bash
# runcf.sh <tree> <label>: ConnectFailureTest (core) and ConscryptConnectFailureTest (conscrypt), class times from the XMLs
cd "$1" || exit 1
l0=$(cut -d' ' -f1 /proc/loadavg); t0=$(date +%T)
JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 nice -n 5 ./mvnw -B -q ${OFF--o} -Dmaven.repo.local=/tmp/m2-suitetime/repository \
  -pl loomgate-conscrypt -am test -Dtest=ConnectFailureTest,ConscryptConnectFailureTest \
  -Dsurefire.failIfNoSpecifiedTests=false -Djacoco.skip=true > /tmp/st52/run-$2.log 2>&1
rc=$?
l1=$(cut -d' ' -f1 /proc/loadavg)
for x in loomgate-core/target/surefire-reports/TEST-io.loomgate.upstream.ConnectFailureTest.xml loomgate-conscrypt/target/surefire-reports/TEST-io.loomgate.upstream.ConscryptConnectFailureTest.xml; do
  h=$(head -c 3000 $x | grep -o '<testsuite [^>]*' | grep -o 'name="[^"]*" time="[^"]*" tests="[^"]*" errors="[^"]*" skipped="[^"]*" failures="[^"]*"')
  echo "$2 start $t0 load $l0 -> $l1 rc=$rc $h"
  mkdir -p /tmp/st52/xml-$2; cp $x /tmp/st52/xml-$2/
done
