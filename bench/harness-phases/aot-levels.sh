#!/usr/bin/env bash
# What a JDK 25 AOT cache's training data says about the JIT (docs/journal/2026-11-30-s48-warmtrain.md): how many
# methods have training data, how many were compiled by C2 (tier 4) in the training (a deployment compiles those at
# tier 4 at their first calls, from the stored profile), how many of them are io.loomgate's, and the tiers the
# training compiled the proxy path's roots at. A count that the machine's load does not blur, read from the JVM's own
# print of the cache (-XX:+PrintSharedArchiveAndExit with the flags the cache was made with).
#   bench/harness-phases/aot-levels.sh                                   # the launcher's cache
#   bench/harness-phases/aot-levels.sh /tmp/other/loomgate-cli/target/loomgate-gateway.aot
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
AOT=${1:-$ROOT/loomgate-cli/target/loomgate-gateway.aot}
JAR=$(dirname "$AOT")/loomgate-gateway.jar
JAVA_HOME=${JAVA_HOME:-$(ls -d /usr/lib/jvm/temurin-25* | head -1)}
# the launcher's AOT_FLAGS: the JVM refuses to print a cache made with other flags
FLAGS=(-Xmx176m -Xms32m -XX:NewSize=16m -XX:MaxNewSize=16m -XX:+UseSerialGC -XX:ReservedCodeCacheSize=64m
    -XX:MaxMetaspaceSize=128m -XX:FlightRecorderOptions=memorysize=2m -XX:TrimNativeHeapInterval=1000
    -XX:+UseCompactObjectHeaders)
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
"$JAVA_HOME/bin/java" "${FLAGS[@]}" "-XX:AOTCache=$AOT" -XX:+PrintSharedArchiveAndExit -cp "$JAR" > "$OUT" 2>&1 || true
grep -q 'Archived TrainingData Dictionary' "$OUT" || { echo "no training data printed for $AOT:" >&2; tail -5 "$OUT" >&2; exit 1; }
# the dictionary: "  n: 0x... M klass.method(sig) ..." per method, then "  C ...#<compile id>L<tier>" per compilation
awk '
    /^ *[0-9]+: 0x[0-9a-f]+ M / { m = 1; own = ($0 ~ / M io\/loomgate/); methods++; if (own) ownMethods++; next }
    /^ *[0-9]+: 0x/ { m = 0; next }
    m && /^  C .*L4( |$)/ { c2++; if (own) ownC2++; m = 0 }
    END { printf "methods with training data %d (io.loomgate %d); compiled by C2 in the training %d (io.loomgate %d)\n",
              methods, ownMethods, c2, ownC2 }' "$OUT"
for r in 'ProxyHandler[A].handle(' 'ProxyHandler[A].exchange(' 'ProxyHandler[A].relayResponse(' \
         'UpstreamForwarder[A].tryUpstream(' 'FrameReader[A].readFully(' 'Http2Connection[A].awaitOrPark(' \
         'HpackDecoder[A].decode(' 'EngineChannel[A].read(' 'ConscryptEngine[A].wrap(' 'ConscryptEngine[A].unwrap('; do
    awk -v r="$r" '
        /^ *[0-9]+: 0x[0-9a-f]+ M / { m = (index($0, r) > 0); next }
        /^ *[0-9]+: 0x/ { m = 0; next }
        m && /^  C / { match($0, /#[0-9]+L[0-9]/); t = t " " substr($0, RSTART + RLENGTH - 1, 1) }
        END { name = r; sub(/\[A\]/, "", name); sub(/\($/, "", name); printf "  %-32s tiers in training:%s\n", name, (t == "" ? " -" : t) }' "$OUT"
done
