#!/bin/bash
# one surefire execution of loomgate-cli (EXEC) with N JVMs: wall (Maven's), tree CPU (treecpu.py), the pass's report span
EXEC=$1; N=$2; LABEL=$3; cd /work/wt/suitetime7; export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
DIR=$( [ $EXEC = tls-conscrypt ] && echo surefire-reports-conscrypt || echo surefire-reports ); rm -rf loomgate-cli/target/$DIR
l0=$(cut -d' ' -f1 /proc/loadavg); s=$(date +%s.%N)
nice ./mvnw -B -o -Dmaven.repo.local=/tmp/m2-suitetime7/repository -pl loomgate-cli surefire:test@$EXEC -Dloomgate.cli.forks=$N > /tmp/st7/$LABEL.log 2>&1 &
m=$!; python3 /tmp/st7/treecpu.py $m /tmp/st7/$LABEL.cpu & wait $m; rc=$?; e=$(date +%s.%N)
cpu=$(tail -1 /tmp/st7/$LABEL.cpu | awk '{print $2}')
span=$(python3 /tmp/st7/lanes.py loomgate-cli/target/$DIR | grep -o 'ends [0-9.]*' | sort -k2 -n | tail -1)
echo "$LABEL $EXEC forks=$N rc=$rc $(date -u +%T) load $l0 -> $(cut -d' ' -f1 /proc/loadavg) maven-wall $(printf %.1f $(echo "$e - $s" | bc)) tree-cpu $cpu pass-span $span $(grep 'Tests run:.*Fail' /tmp/st7/$LABEL.log | grep -v ' in ' | cut -c11-)"
