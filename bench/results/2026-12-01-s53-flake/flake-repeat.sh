#!/bin/bash
# usage: flake-repeat.sh label runs  (runs EpollParkingRepeatTest beside two busy loops of its own)
cd /work/wt/flake
label=$1; runs=$2
out=bench/results/2026-12-01-s53-flake/repeat-$label.log
( while :; do :; done ) & b1=$!
( while :; do :; done ) & b2=$!
{ date -u; uptime; echo "EpollFd: $(git diff --quiet loomgate-epoll/src/main/java/io/loomgate/server/EpollFd.java && echo main || echo fix); busy loops $b1 $b2"; } > $out
start=$(date +%s)
JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 ./mvnw -B -o -Dmaven.repo.local=/tmp/m2-flake/repository -pl loomgate-epoll -am test -Dtest=EpollParkingRepeatTest -Dloomgate.parkingrepeat.runs=$runs -Dsurefire.failIfNoSpecifiedTests=false -Djacoco.skip=true 2>&1 | grep -E "parking repeat|Tests run:|BUILD" >> $out
kill $b1 $b2
{ uptime; echo "wall $(( $(date +%s) - start )) s"; } >> $out
cat $out
