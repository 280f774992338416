#!/bin/bash
# One ManyConnectionsIT run: run-it.sh <label> <jdk|epoll> <busy loops of our own, 0-2> [old]
# "old": main's EpollSocket.java for this run (restored from the branch after it).
# Records the load, the kernel's listen counters before and after, the test's result and its kept evidence.
label=$1; transport=$2; busy=${3:-0}
cd /work/wt/manyconns
out=bench/results/2026-12-01-s56-manyconns/$label.log
code=${4:-new}
src=loomgate-epoll/src/main/java/io/loomgate/server/EpollSocket.java
[ "$code" = old ] && git show main:$src > $src
pids=()
for i in $(seq 1 $busy); do ( while :; do :; done ) & pids+=($!); done
{
echo "== $label transport=$transport busy=$busy code=$code start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
nstat -asz TcpExtListenOverflows TcpExtListenDrops | tail -2
prop=""; [ "$transport" = epoll ] && prop="-Dloomgate.test.transport=epoll"
JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 ./mvnw -B -q -o -Dmaven.repo.local=/tmp/m2-manyconns/repository -pl loomgate-cli -am verify \
  -Dit.test=ManyConnectionsIT -Dtest=NoSuchTest -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false -Djacoco.skip=true $prop 2>&1 \
  | grep -v "^WARNING" | grep -E "Tests run|FAIL|ERROR|502|Expecting|kept in|upstream" | head -40
echo "rc ${PIPESTATUS[0]}"
nstat -asz TcpExtListenOverflows TcpExtListenDrops | tail -2
echo "== end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
grep -h "Tests run\|Time elapsed" loomgate-cli/target/failsafe-reports/*ManyConnectionsIT.txt 2>/dev/null
} > $out 2>&1
for p in "${pids[@]}"; do kill $p; done
git checkout -- $src
cp loomgate-cli/target/ManyConnectionsIT-gateway-*.log bench/results/2026-12-01-s56-manyconns/ 2>/dev/null
cat $out
