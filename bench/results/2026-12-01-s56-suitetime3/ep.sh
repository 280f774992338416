#!/bin/bash
# the failsafe epoll pass alone (package, then the transport-epoll-it execution), base (A) / new (B) SlowBodyAttackIT alternated
T=/work/wt/suitetime3/loomgate-cli/src/test/java/io/loomgate/it/SlowBodyAttackIT.java
cd /work/wt/suitetime3
run() { label=$1
  echo "$label start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> /tmp/st3/runs.txt
  rm -rf loomgate-cli/target/failsafe-reports-epoll
  CI=true JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 ./mvnw -B -o -Dmaven.repo.local=/tmp/m2-suitetime3/repository -pl loomgate-cli package failsafe:integration-test@transport-epoll-it -Djacoco.skip=true -Dtest=NoSuchTest -Dsurefire.failIfNoSpecifiedTests=false > /tmp/st3/$label.log 2>&1
  rc=$?
  mkdir -p /tmp/st3/$label && cp loomgate-cli/target/failsafe-reports-epoll/TEST-*.xml /tmp/st3/$label/
  echo "$label end $(date -u +%T) rc=$rc load $(cut -d' ' -f1-3 /proc/loadavg) $(grep -h 'Tests run:.*in io' /tmp/st3/$label.log | sed 's/.*Tests run: \([0-9]*\), F.*Time elapsed: \([0-9.]*\) s.* in io.loomgate.it.\(.*\)/\3 \2|/' | tr -d '\n')" >> /tmp/st3/runs.txt
}
for i in 1 2; do
  cp /tmp/st3/SlowBodyAttackIT.base.java $T; run EP-A$i
  cp /tmp/st3/SlowBodyAttackIT.new.java $T; run EP-B$i
done
cp /tmp/st3/SlowBodyAttackIT.new.java $T
