#!/usr/bin/env bash
# The image under podman run --memory 256m, its ENTRYPOINT with the young generation at Y MiB (-Xms Y+16), in turn
cd /work/wt/youngen
for y in ${SIZES:-32 48}; do
  ep='--entrypoint=["/opt/loomgate/jre/bin/java","-XX:MaxRAMPercentage=50","-Xms'$((y + 16))'m","-XX:NewSize='$y'm","-XX:MaxNewSize='$y'm","-XX:+UseSerialGC","-XX:+UseCompactObjectHeaders","-XX:ReservedCodeCacheSize=64m","-XX:MaxMetaspaceSize=128m","-XX:FlightRecorderOptions=memorysize=2m","-XX:TrimNativeHeapInterval=1000","-XX:AOTCache=/opt/loomgate/loomgate.aot","-Xlog:aot=off","-Dloomgate.aot-cache=/opt/loomgate/loomgate.aot","-Xlog:gc","-XX:+ExitOnOutOfMemoryError","-jar","/opt/loomgate/loomgate.jar"]'
  echo "=== young $y $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
  IMAGE=localhost/loomgate:youngen CONTAINER_ARGS="$ep" SHARED=/work/shared/bench ORIGIN_PORT=25080 PORT=25081 \
    ADMIN_PORT=25901 WORK=/tmp/yg/ctwork OUT=/tmp/yg/ct/young$y bench/memory/run.sh container
done
