#!/usr/bin/env bash
# Classes loaded outside the AOT cache on a start, per transport, and the time to the first request: for each round,
# each build (a directory holding loomgate-gateway.jar and loomgate-gateway.aot, copied with their times) and each
# transport in turn (interleaved, so the machine's load falls on each alike), ttfr.py starts the gateway with the
# launcher's flags, the cache and -Xlog:class+load, and prints one line: build, transport, wall ms and CPU ms to the
# first 200, then classes from the cache ("source: shared objects file") and outside it, split: java.base and other
# JDK modules (jrt:/), spun (lambda forms, hidden classes, DowncallStubs: __JVM_LookupDefineClass__ and the like),
# and the jar. The class log covers the start up to the first answer and the SIGTERM after it.
#   bench/startup/classes.sh DIR...        ROUNDS=5 TRANSPORTS="jdk epoll" JAVA=... FULL_JAR=...
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
JAVA=${JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
FULL_JAR=${FULL_JAR:-$ROOT/loomgate-cli/target/loomgate.jar}
ROUNDS=${ROUNDS:-5}
TRANSPORTS=${TRANSPORTS:-"jdk epoll"}
PORT=${PORT:-24291} ORIGIN_PORT=${ORIGIN_PORT:-24290}
WORK=${WORK:-/tmp/loomgate-classes}
FLAGS=(-Xmx176m -Xms40m -XX:NewSize=24m -XX:MaxNewSize=24m -XX:SurvivorRatio=2 -XX:TargetSurvivorRatio=90
    -XX:+UseSerialGC -XX:ReservedCodeCacheSize=64m -XX:MaxMetaspaceSize=128m -XX:FlightRecorderOptions=memorysize=2m
    -XX:TrimNativeHeapInterval=1000 -XX:+UseCompactObjectHeaders)
mkdir -p "$WORK"
"$JAVA" -jar "$FULL_JAR" backend --port "$ORIGIN_PORT" >"$WORK/origin.log" 2>&1 &
origin=$!
trap 'kill $origin 2>/dev/null' EXIT
for ((i = 0; i < 600; i++)); do
    curl -fsS -o /dev/null "http://127.0.0.1:$ORIGIN_PORT/hello" 2>/dev/null && break
    sleep 0.1
done
for t in $TRANSPORTS; do
    cat >"$WORK/$t.yaml" <<YAML
server: { address: 127.0.0.1, port: $PORT, transport: $t }
admin: { port: 0 }
routes:
  - { id: origin, uri: "http://127.0.0.1:$ORIGIN_PORT", predicates: [ "Path=/**" ] }
YAML
done
echo "# $(date -u +%FT%TZ) $("$JAVA" -version 2>&1 | sed -n 2p); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# build transport wall_ms cpu_ms from_cache outside: java.base other_jdk spun jar"
for ((r = 1; r <= ROUNDS; r++)); do
    for dir in "$@"; do
        for t in $TRANSPORTS; do
            log=$WORK/$(basename "$dir")-$t-$r.classes
            rm -f "$log"
            times=$(TTFR_LOG=$WORK/$(basename "$dir")-$t-$r.out "$HERE/ttfr.py" "$PORT" /hello -- "$JAVA" "${FLAGS[@]}" \
                -XX:AOTCache="$dir/loomgate-gateway.aot" -Xlog:aot=off -Dloomgate.aot-cache="$dir/loomgate-gateway.aot" \
                -Xlog:class+load=info:file="$log" -jar "$dir/loomgate-gateway.jar" serve --config "$WORK/$t.yaml" --no-watch)
            shared=$(grep -c 'source: shared objects file' "$log" || true)
            base=$(grep -v 'shared objects file' "$log" | grep -c 'source: jrt:/java.base' || true)
            jdk=$(grep -v 'shared objects file' "$log" | grep 'source: jrt:/' | grep -vc 'jrt:/java.base' || true)
            jar=$(grep -v 'shared objects file' "$log" | grep -c 'source: file:\|source: jar:' || true)
            all=$(grep -c 'source: ' "$log" || true)
            echo "$(basename "$dir") $t $times $shared $base $jdk $((all - shared - base - jdk - jar)) $jar"
        done
    done
done
echo "# $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg)"
