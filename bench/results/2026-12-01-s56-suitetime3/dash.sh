#!/bin/bash
# DashboardInBrowserTest alone, base (A) / new (B) alternated; ends with the new one in place
T=/work/wt/suitetime3/loomgate-cli/src/test/java/io/loomgate/it/DashboardInBrowserTest.java
cd /work/wt/suitetime3
run() { label=$1
  echo "$label start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> /tmp/st3/runs.txt
  CI=true JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 ./mvnw -B -o -Dmaven.repo.local=/tmp/m2-suitetime3/repository -pl loomgate-cli test -Djacoco.skip=true -Dtest=DashboardInBrowserTest > /tmp/st3/$label.log 2>&1
  echo "$label end $(date -u +%T) rc=$? load $(cut -d' ' -f1-3 /proc/loadavg) $(grep -h 'Tests run:.*in io' /tmp/st3/$label.log | sed 's/.*Tests run/Tests run/')" >> /tmp/st3/runs.txt
}
for i in "$@"; do
  cp /tmp/st3/Dash.new.java $T; run D-B$i
  cp /tmp/st3/Dash.base.java $T; run D-A$i
done
cp /tmp/st3/Dash.new.java $T
