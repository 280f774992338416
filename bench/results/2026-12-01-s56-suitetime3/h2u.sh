#!/bin/bash
cd /work/wt/suitetime3
run() { label=$1; pat=$2
  echo "$label start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> /tmp/st3/runs.txt
  JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 ./mvnw -B -o -Dmaven.repo.local=/tmp/m2-suitetime3/repository -pl loomgate-cli test -Djacoco.skip=true "-Dtest=$pat" -Dloomgate.test.tls-provider=conscrypt > /tmp/st3/$label.log 2>&1
  echo "$label end $(date -u +%T) rc=$? load $(cut -d' ' -f1-3 /proc/loadavg) $(grep -h 'Tests run:.*in io' /tmp/st3/$label.log | sed 's/.*Tests run/Tests run/')" >> /tmp/st3/runs.txt
}
for i in 1 2; do run H-A$i Http2UpstreamTest; run H-B$i 'Http2UpstreamTest#anHttpsOrigin*'; done
