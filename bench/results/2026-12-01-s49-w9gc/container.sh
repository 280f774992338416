#!/usr/bin/env bash
# The image under podman run --memory 256m (bench/memory/run.sh container), its ENTRYPOINT with the young generation
# of the branch (24 MiB, SurvivorRatio=2, TargetSurvivorRatio=90) and of main (16 MiB), in turn. IMAGE: an image
# built from main's Dockerfile plus the session's other branches (its own flags are replaced by --entrypoint).
cd /work/wt/w9gc
R=$PWD/bench/results/2026-12-01-s49-w9gc
for v in ${VARIANTS:-y24r2t y16}; do
  case $v in
    y24r2t) y='"-Xms40m","-XX:NewSize=24m","-XX:MaxNewSize=24m","-XX:SurvivorRatio=2","-XX:TargetSurvivorRatio=90"' ;;
    y16) y='"-Xms32m","-XX:NewSize=16m","-XX:MaxNewSize=16m"' ;;
    y20r3t) y='"-Xms36m","-XX:NewSize=20m","-XX:MaxNewSize=20m","-XX:SurvivorRatio=3","-XX:TargetSurvivorRatio=90"' ;;
  esac
  ep='--entrypoint=["/opt/loomgate/jre/bin/java","-XX:MaxRAMPercentage=50",'$y',"-XX:+UseSerialGC","-XX:+UseCompactObjectHeaders","-XX:ReservedCodeCacheSize=64m","-XX:MaxMetaspaceSize=128m","-XX:FlightRecorderOptions=memorysize=2m","-XX:TrimNativeHeapInterval=1000","-XX:AOTCache=/opt/loomgate/loomgate.aot","-Xlog:aot=off","-Dloomgate.aot-cache=/opt/loomgate/loomgate.aot","-Xlog:gc","-XX:+ExitOnOutOfMemoryError","-jar","/opt/loomgate/loomgate.jar"]'
  echo "=== $v $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
  JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 IMAGE=${IMAGE:-localhost/loomgate:imageepoll} CONTAINER_ARGS="$ep" \
    SHARED=/work/shared/bench ORIGIN_PORT=25380 PORT=25381 ADMIN_PORT=25391 WORK=/tmp/w9gc/ctwork OUT=$R/container/$v${ROUND:+.$ROUND} \
    bench/memory/run.sh container
done
echo "=== done $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
