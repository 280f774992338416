#!/bin/bash
# Point 4: the h2c probe cases on a cold gateway (a fresh test JVM each run), the machine loaded; every bystander miss kept.
cd /tmp/h2rst-repro-wt
N=${N:-6}
for i in $(seq 1 $N); do
  start=$(date +%T); load=$(cut -d' ' -f1-3 /proc/loadavg)
  JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 nice -n 5 ./mvnw -B -q -o -Dmaven.repo.local=/tmp/m2-h2rst/repository \
    -pl loomgate-cli -am test -Dtest=HostileProbeTest -Dsurefire.failIfNoSpecifiedTests=false \
    "-Dloomgate.probe.only=h2c " -DLOOMGATE_LOG_LEVEL=${LEVEL:-info} > /tmp/h2rst-repro/run$i.log 2>&1
  rc=$?
  misses=$(grep -c "PROBE bystander" /tmp/h2rst-repro/run$i.log)
  res=$(grep -h "Tests run" loomgate-cli/target/surefire-reports/io.loomgate.http2.HostileProbeTest.txt 2>/dev/null)
  echo "run $i $start load[$load] rc=$rc misses=$misses $res" | tee -a /tmp/h2rst-repro/summary.txt
  cp loomgate-cli/target/surefire-reports/io.loomgate.http2.HostileProbeTest.txt /tmp/h2rst-repro/run$i.txt 2>/dev/null
done
