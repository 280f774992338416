#!/bin/bash
# Point 4, second way: the h2c floods alone (as in stop 42's miss), info logging, the test JVM and a busy loop pinned to
# one CPU (JVM told it has 2, so it keeps two carriers as on the 2-core machine): carriers starved the way load 11+ did.
cd /tmp/h2rst-repro-wt
N=${N:-8}
ONLY="h2c rapid|h2c CONTINUATION|h2c SETTINGS|h2c PING|h2c empty|h2c PRIORITY|h2c resets the server|h2c WINDOW_UPDATE|h2c DATA on a stream closed|h2c content-length"
for i in $(seq 1 $N); do
  start=$(date +%T); load=$(cut -d' ' -f1-3 /proc/loadavg)
  JAVA_TOOL_OPTIONS=-XX:ActiveProcessorCount=2 JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 taskset -c 0 ./mvnw -B -q -o \
    -Dmaven.repo.local=/tmp/m2-h2rst/repository -pl loomgate-cli -am test -Dtest=HostileProbeTest \
    -Dsurefire.failIfNoSpecifiedTests=false "-Dloomgate.probe.only=$ONLY" > /tmp/h2rst-repro/b-run$i.log 2>&1
  rc=$?
  misses=$(grep -c "PROBE bystander" /tmp/h2rst-repro/b-run$i.log)
  res=$(grep -h "Tests run" loomgate-cli/target/surefire-reports/io.loomgate.http2.HostileProbeTest.txt 2>/dev/null)
  echo "b-run $i $start load[$load] rc=$rc misses=$misses $res" | tee -a /tmp/h2rst-repro/summary.txt
  cp loomgate-cli/target/surefire-reports/io.loomgate.http2.HostileProbeTest.txt /tmp/h2rst-repro/b-run$i.txt 2>/dev/null
done
