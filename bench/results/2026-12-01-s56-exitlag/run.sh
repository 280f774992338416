#!/usr/bin/env bash
# usage: run.sh <tag> [dump]  — starts an idle gateway via ./loomgate serve, SIGTERM after it listens, times exit
tag=$1; dump=${2:-}
cd /work/wt/exitlag
log=/tmp/exitlag/$tag.log
if [[ -n ${DIRECT:-} ]]; then
  /usr/lib/jvm/temurin-25-jdk-amd64/bin/java ${OPTS:-} -jar loomgate-cli/target/loomgate.jar serve --config /tmp/exitlag/${CFG:-idle}.yaml > $log 2>&1 &
else
  LOOMGATE_JAVA_OPTS="${OPTS:-}" ./loomgate serve --config /tmp/exitlag/${CFG:-idle}.yaml > $log 2>&1 &
fi
pid=$!
for i in $(seq 1 200); do grep -q "listening" $log 2>/dev/null && break; sleep 0.05; done
sleep ${WAIT:-2}
# the launcher execs java, so $pid is the JVM
t0=$(date +%s%3N)
kill -TERM $pid
if [[ -n $dump ]]; then
  sleep 0.3
  /usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd $pid Thread.print -e > /tmp/exitlag/$tag.threads1 2>&1
  sleep 0.5
  /usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd $pid Thread.print -e > /tmp/exitlag/$tag.threads2 2>&1
fi
wait $pid; rc=$?
t1=$(date +%s%3N)
echo "$tag: SIGTERM to exit $((t1-t0)) ms rc=$rc load $(cut -d' ' -f1 /proc/loadavg) sent $(date -u -d @$((t0/1000)) +%T).$(printf %03d $((t0%1000)))"
grep -E "SIGTERM|drained|AOT cache" $log
