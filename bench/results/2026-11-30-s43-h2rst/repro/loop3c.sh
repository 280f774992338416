#!/bin/bash
# Point 4, third way: as loop2 (one CPU shared with a busy loop, two carriers) but a fresh JVM per run without Maven
# (JUnit's launcher on surefire's class path): three times the runs per minute, each on a cold gateway.
cd /tmp/h2rst-repro-wt/loomgate-cli
N=${N:-20}
ONLY="h2c rapid|h2c CONTINUATION|h2c SETTINGS|h2c PING|h2c empty|h2c PRIORITY|h2c resets the server|h2c WINDOW_UPDATE|h2c DATA|h2c content-length|h2c HPACK|h2c a stream past|h2c a client that credits"
for i in $(seq 1 $N); do
  start=$(date +%T); load=$(cut -d' ' -f1-3 /proc/loadavg)
  taskset -c 0 nice -n 15 /usr/lib/jvm/temurin-25-jdk-amd64/bin/java -Xmx512m -XX:ActiveProcessorCount=2 \
    "-Dloomgate.probe.only=$ONLY" -cp "$(cat /tmp/h2rst-repro/fullcp.txt)" RunProbe > /tmp/h2rst-repro/c${ROUND:-}-run$i.log 2>&1
  rc=$?
  misses=$(grep -c "PROBE bystander" /tmp/h2rst-repro/c${ROUND:-}-run$i.log)
  echo "c${ROUND:-}-run $i $start load[$load] rc=$rc misses=$misses $(grep -h RESULT /tmp/h2rst-repro/c${ROUND:-}-run$i.log) end $(date +%T)" | tee -a /tmp/h2rst-repro/summary.txt
done
