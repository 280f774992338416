#!/usr/bin/env bash
# usage: flaky2-targeted.sh LABEL N TESTS [extra mvn args]: N Maven runs of TESTS in /work/wt/flaky2, each's reports kept
L=$1; N=$2; T=$3; shift 3
cd /work/wt/flaky2
for i in $(seq 1 $N); do
  echo "$L $i start $(date -u +%H:%M:%S) $(git rev-parse --short HEAD) load $(cut -d' ' -f1-3 /proc/loadavg)"
  JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 CI=true PATH=$HOME/go/bin:/usr/local/go/bin:$PATH ./mvnw -B -q -o -Dmaven.repo.local=/tmp/m2-flaky2/repository -pl loomgate-cli -am test -Dtest="$T" -Dsurefire.failIfNoSpecifiedTests=false -Djacoco.skip=true "$@" > /tmp/flaky2-t-$L-$i.log 2>&1
  rc=$?
  mkdir -p /tmp/flaky2-t-$L-$i; for d in */target/surefire-reports*; do mkdir -p /tmp/flaky2-t-$L-$i/$(dirname $d); cp -r $d /tmp/flaky2-t-$L-$i/$(dirname $d)/; done
  echo "$L $i rc $rc end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg) $(python3 /tmp/flaky2-fails.py /tmp/flaky2-t-$L-$i | tail -1)"
  python3 /tmp/flaky2-fails.py /tmp/flaky2-t-$L-$i | head -n -1 | sed "s/^/  $L $i: /"
done
