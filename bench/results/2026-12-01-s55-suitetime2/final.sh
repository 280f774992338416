#!/bin/bash
# final.sh: clean clone of the branch head, then CI=true ./loomgate test with my Maven repository; load sampled each 30 s
rm -rf /tmp/st2-clone && git clone -q -b suitetime2 /work/wt/suitetime2 /tmp/st2-clone || exit 1
cd /tmp/st2-clone || exit 1
( while true; do echo "$(date +%T) $(cut -d' ' -f1-3 /proc/loadavg)"; sleep 30; done ) > /tmp/st2/final-load.txt &
LP=$!
echo "start $(date +%T) head $(git log --oneline -1 | cut -c1-12) load $(cut -d' ' -f1 /proc/loadavg)" > /tmp/st2/final.out
s=$(date +%s)
CI=true JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 MAVEN_ARGS="-Dmaven.repo.local=/tmp/m2-suitetime2/repository" ./loomgate test -Dmaven.test.failure.ignore=true > /tmp/st2/final.log 2>&1
rc=$?
echo "end $(date +%T) rc=$rc wall $(( $(date +%s) - s )) s load $(cut -d' ' -f1 /proc/loadavg)" >> /tmp/st2/final.out
kill $LP
