#!/usr/bin/env bash
# usage: flaky2-gate.sh LABEL N [mvn args]: MemoryGateReopensTest N times in /work/wt/flaky2, DIAG lines and results
L=$1; N=$2; shift 2
cd /work/wt/flaky2
for i in $(seq 1 $N); do
  s=$(date -u +%H:%M:%S); l0=$(cut -d' ' -f1 /proc/loadavg)
  JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 ./mvnw -B -o -Dmaven.repo.local=/tmp/m2-flaky2/repository -pl loomgate-core test -Dtest=MemoryGateReopensTest -Dsurefire.failIfNoSpecifiedTests=false -Djacoco.skip=true -Dloomgate.test.forks=1 "$@" > /tmp/flaky2-g-$L-$i.log 2>&1
  rc=$?
  echo "$L $i $s-$(date -u +%H:%M:%S) load $l0-$(cut -d' ' -f1 /proc/loadavg) rc $rc $(grep -h "^memory gate shut" /tmp/flaky2-g-$L-$i.log loomgate-core/target/surefire-reports/*MemoryGateReopensTest-output.txt 2>/dev/null | head -1) $(grep -o 'Tests run: [0-9]*, Failures: [0-9]*, Errors: [0-9]*' /tmp/flaky2-g-$L-$i.log | tail -1)"
  grep -h "Expecting actual" -A3 /tmp/flaky2-g-$L-$i.log | head -4 | tr '\n' ' ' | sed 's/^/   /'; echo
done
