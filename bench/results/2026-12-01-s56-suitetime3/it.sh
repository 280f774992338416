#!/bin/bash
# usage: it.sh <label> <ITs>  — runs the ITs alone in loomgate-cli (modules installed), keeps the reports
cd /work/wt/suitetime3
label=$1; shift
echo "$label start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> /tmp/st3/runs.txt
CI=true JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 ./mvnw -B -o -Dmaven.repo.local=/tmp/m2-suitetime3/repository -pl loomgate-cli verify -Djacoco.skip=true -Dit.test="$1" -Dtest=NoSuchTest -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false > /tmp/st3/$label.log 2>&1
rc=$?
mkdir -p /tmp/st3/$label && cp loomgate-cli/target/failsafe-reports/TEST-*.xml /tmp/st3/$label/ 2>/dev/null
echo "$label end $(date -u +%T) rc=$rc load $(cut -d' ' -f1-3 /proc/loadavg) $(grep -ho 'testsuite [^>]*name="[^"]*" time="[^"]*"' /tmp/st3/$label/*.xml | sed 's/.*name="io.loomgate.[a-z.]*//' | tr '\n' ' ')" >> /tmp/st3/runs.txt
