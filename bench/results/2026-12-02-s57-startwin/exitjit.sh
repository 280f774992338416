#!/usr/bin/env bash
# usage: exitjit.sh <tag>  (env: OPTS = extra JVM flags after the launcher's, WAIT = seconds served before SIGTERM,
# JAR = run this jar with java -jar instead of the launcher: no AOT cache, -XX:UserThreadWaitAttemptsAtExit=0)
# Starts an idle gateway with the launcher (./loomgate serve, its AOT cache and flags), one request, SIGTERM after
# WAIT s; logs compilations (-Xlog:jit+compilation=debug) and class loads with wall-clock times, then counts what
# happened after the "drained cleanly; exiting" line: compilations started, classes loaded (and how many of them not
# from the AOT cache), and the gap from the line to the process's end (the shell's kill..wait).
tag=$1
cd /work/wt/startwin
d=/tmp/startwin-exit; mkdir -p $d
log=$d/$tag.log; jit=$d/$tag.jit; cls=$d/$tag.cls
rm -f $log $jit $cls
if [[ -n ${JAR:-} ]]; then # a jar of one's own, no AOT cache, the launcher's exit flag
  /usr/lib/jvm/temurin-25-jdk-amd64/bin/java -Xmx176m -XX:+UseSerialGC -XX:UserThreadWaitAttemptsAtExit=0 \
    -Xlog:jit+compilation=debug:file=$jit:time -Xlog:class+load=info:file=$cls:time ${OPTS:-} \
    -jar $JAR serve --config $d/idle.yaml --no-watch > $log 2>&1 &
else
LOOMGATE_JAVA_OPTS="-Xlog:jit+compilation=debug:file=$jit:time -Xlog:class+load=info:file=$cls:time ${OPTS:-}" \
  ./loomgate serve --config $d/idle.yaml --no-watch > $log 2>&1 &
fi
pid=$!
for i in $(seq 1 400); do grep -q "listening" $log 2>/dev/null && break; sleep 0.05; done
curl -s -o /dev/null -w "first request %{http_code}\n" http://127.0.0.1:29721/x
sleep ${WAIT:-2}
t0=$(date +%s%3N)
kill -TERM $pid
wait $pid; rc=$?
t1=$(date +%s%3N)
line=$(grep "drained cleanly" $log | cut -d' ' -f1)
linems=$(date -d "$line" +%s%3N)
after() { awk -v t="$line" '{ts=substr($1,2,23); gsub("T"," ",ts); lt=t; sub("Z","",lt); gsub("T"," ",lt); if (ts >= lt) print}' "$1"; }
ncomp=$(after $jit | grep -c "^\[")
ncls=$(after $cls | grep -c "^\[")
nshared=$(after $cls | grep -c "shared objects file")
last=$(tail -1 $jit | cut -c2-24)
jfr=$(after $jit | grep -v "made not entrant" | grep -c "jdk\.jfr\.")
echo "$tag: rc=$rc SIGTERM->exit $((t1-t0)) ms, line->exit $((t1-linems)) ms; after the line: $ncomp compilation lines ($jfr starting jdk.jfr methods), $ncls classes loaded ($nshared from the cache); load $(cut -d' ' -f1 /proc/loadavg); opts: ${OPTS:-none}"
