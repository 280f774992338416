#!/bin/bash
# usage: run.sh transport listfile tag
T=$1; L=$2; TAG=$3
cd /work/wt/epollsuite
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
OUT=/tmp/epollsuite/$TAG; mkdir -p $OUT
split -l ${BATCH:-6} /tmp/epollsuite/$L $OUT/batch.
for b in $OUT/batch.[a-z][a-z]; do
  cls=$(paste -sd, $b)
  s=$(date +%s); echo "$(date -u +%T) start $cls load=$(cut -d' ' -f1-3 /proc/loadavg)" >> $OUT/log
  nice -n 5 ./mvnw -B -o -Dmaven.repo.local=/tmp/m2-epollsuite/repository -Dcli.forks=1 -pl loomgate-cli -am test -Dtest="$cls" -Dsurefire.failIfNoSpecifiedTests=false -Dloomgate.test.transport=$T > $OUT/$(basename $b).mvn.log 2>&1
  rc=$?
  echo "$(date -u +%T) end rc=$rc $(( $(date +%s)-s ))s load=$(cut -d' ' -f1-3 /proc/loadavg)" >> $OUT/log
  mkdir -p $OUT/reports; cp loomgate-cli/target/surefire-reports/TEST-*.xml $OUT/reports/ 2>/dev/null
  rm -f loomgate-cli/target/surefire-reports/TEST-*.xml
done
echo DONE >> $OUT/log
