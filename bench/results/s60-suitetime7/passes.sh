#!/bin/bash
# one run of loomgate-cli's three surefire passes (default, transport-epoll, tls-conscrypt) with N forks, the Maven
# tree's CPU sampled (treecpu.py); reports kept under /tmp/st7/$LABEL-reports. Usage: passes.sh LABEL N
LABEL=$1; N=$2; cd /work/wt/suitetime7
rm -rf loomgate-cli/target/surefire-reports loomgate-cli/target/surefire-reports-epoll loomgate-cli/target/surefire-reports-conscrypt
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
echo "== $LABEL forks $N start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> /tmp/st7/passes.log
s=$(date +%s.%N)
nice ./mvnw -B -o -Dmaven.repo.local=/tmp/m2-suitetime7/repository -pl loomgate-cli surefire:test@default-test \
  surefire:test@transport-epoll surefire:test@tls-conscrypt -Dloomgate.cli.forks=$N > /tmp/st7/$LABEL.log 2>&1 &
mvn=$!
sleep 1; root=$(pgrep -P $mvn java || echo $mvn)
python3 /tmp/st7/treecpu.py $mvn /tmp/st7/$LABEL.cpu &
wait $mvn; rc=$?
e=$(date +%s.%N)
echo "== $LABEL forks $N rc $rc end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg) wall $(echo "$e - $s" | bc)" >> /tmp/st7/passes.log
grep "Tests run:.*Fail" /tmp/st7/$LABEL.log | grep -v " in " >> /tmp/st7/passes.log
rm -rf /tmp/st7/$LABEL-reports; mkdir -p /tmp/st7/$LABEL-reports/loomgate-cli/target
cp -rp loomgate-cli/target/surefire-reports* /tmp/st7/$LABEL-reports/loomgate-cli/target/
