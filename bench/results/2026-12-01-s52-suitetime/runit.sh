#!/bin/bash
# runit.sh <tree> <label>: the epoll IT execution alone (after package), its span and classes from the XMLs
cd "$1" || exit 1
l0=$(cut -d' ' -f1 /proc/loadavg); t0=$(date +%T)
rm -rf loomgate-cli/target/failsafe-reports-epoll
JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 nice -n 5 ./mvnw -B -o -Dmaven.repo.local=/tmp/m2-suitetime/repository \
  -pl loomgate-cli -am package failsafe:integration-test@transport-epoll-it -Dtest=NoSuchTest \
  -Dsurefire.failIfNoSpecifiedTests=false > /tmp/st52/runit-$2.log 2>&1
rc=$?
l1=$(cut -d' ' -f1 /proc/loadavg)
echo "$2 start $t0 load $l0 -> $l1 rc=$rc"
python3 /tmp/st52/span.py loomgate-cli/target/failsafe-reports-epoll | sed "s/^/$2 /"
mkdir -p /tmp/st52/itxml-$2; cp -p loomgate-cli/target/failsafe-reports-epoll/*.xml /tmp/st52/itxml-$2/ 2>/dev/null
