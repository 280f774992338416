#!/usr/bin/env bash
# Time to the first request: exec of the gateway to its first 200 through a route (to the lab's origin), and the
# process's CPU time by then, each way in turn for ROUNDS rounds (alternated, so the machine's load falls on each
# alike), then the median and range of each.
#   bench/startup/run.sh                 ROUNDS=9 WAYS="none cds aot" JAVA=... JAR=... FULL_JAR=...
# The ways: none (the JDK's default CDS archive only), cds (the launcher's dynamic archive, -XX:+AutoCreateSharedArchive
# before the JDK 25 cache), aot (the JDK 25 AOT cache made by `loomgate aot-train`, as the image and the launcher do).
# All with the launcher's memory flags. The caches are made first, outside the timed runs.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
JAVA=${JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
JAR=${JAR:-$ROOT/loomgate-cli/target/loomgate-gateway.jar}
FULL_JAR=${FULL_JAR:-$ROOT/loomgate-cli/target/loomgate.jar}
ROUNDS=${ROUNDS:-9}
WAYS=${WAYS:-"none cds aot"}
PORT=${PORT:-24281} ORIGIN_PORT=${ORIGIN_PORT:-24280}
WORK=${WORK:-/tmp/loomgate-startup}
FLAGS=(-Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -XX:+ExitOnOutOfMemoryError)
mkdir -p "$WORK"
# A copy: the caches are for this jar at this path, whatever the build does meanwhile. With its time (-p): the JVM
# refuses a cache whose jar has another modification time, so a plain copy made every later run of this script time
# the "aot" way without its cache (its last line said "not used").
cp -p "$JAR" "$WORK/gateway.jar"
cat >"$WORK/gateway.yaml" <<YAML
server: { address: 127.0.0.1, port: $PORT }
admin: { port: 0 }
routes:
  - { id: origin, uri: "http://127.0.0.1:$ORIGIN_PORT", predicates: [ "Path=/**" ] }
YAML
"$JAVA" -jar "$FULL_JAR" backend --port "$ORIGIN_PORT" >"$WORK/origin.log" 2>&1 &
origin=$!
trap 'kill $origin 2>/dev/null' EXIT
# The origin must answer before the first timed run, or that run times the origin's start too (with the caches made
# already, the first round began while the origin's JVM was still starting).
for ((i = 0; i < 600; i++)); do
    curl -fsS -o /dev/null "http://127.0.0.1:$ORIGIN_PORT/hello" 2>/dev/null && break
    sleep 0.1
done
serve=(-jar "$WORK/gateway.jar" serve --config "$WORK/gateway.yaml" --no-watch)
way_flags() {
    case $1 in
        none) ;;
        cds) echo "-XX:+AutoCreateSharedArchive -XX:SharedArchiveFile=$WORK/serve.jsa -Xlog:cds*=off" ;;
        aot) echo "-XX:AOTCache=$WORK/gateway.aot -Xlog:aot=off -Dloomgate.aot-cache=$WORK/gateway.aot" ;;
    esac
}
# A cache is for the jar it was trained on: JDK 25.0.3 maps the classes of a cache made for an older jar at the same
# path without a word (the runs would time the old code), so a cache of another jar is made again; and for its time
# (a cache of the same jar with another time is refused).
jar_sum="$(sha256sum "$WORK/gateway.jar" | cut -d' ' -f1) $(stat -c %Y "$WORK/gateway.jar")"
[[ $(cat "$WORK/gateway.aot.jar" 2>/dev/null) == "$jar_sum" ]] || rm -f "$WORK/gateway.aot"
if [[ " $WAYS " == *" aot "* && ! -f $WORK/gateway.aot ]]; then
    "$JAVA" -jar "$FULL_JAR" aot-train --java "$JAVA" --jar "$WORK/gateway.jar" --output "$WORK/gateway.aot" -- "${FLAGS[@]}"
    echo "$jar_sum" >"$WORK/gateway.aot.jar"
fi
if [[ " $WAYS " == *" cds "* && ! -f $WORK/serve.jsa ]]; then # the archive is written when the first run exits
    "$HERE/ttfr.py" "$PORT" /hello -- "$JAVA" "${FLAGS[@]}" $(way_flags cds) "${serve[@]}" >/dev/null
fi
echo "# $(date -u +%FT%TZ) $("$JAVA" -version 2>&1 | sed -n 2p); load: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A wall cpu
for ((r = 1; r <= ROUNDS; r++)); do
    line="round $r:"
    for way in $WAYS; do
        read -r ms cpums < <(TTFR_LOG=$WORK/$way.log "$HERE/ttfr.py" "$PORT" /hello -- "$JAVA" "${FLAGS[@]}" \
            $(way_flags "$way") "${serve[@]}")
        wall[$way]+="$ms "
        cpu[$way]+="${cpums:-} "
        line+=" $way $ms ms${cpums:+ (cpu $cpums ms)}"
    done
    echo "$line"
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
median() { tr ' ' '\n' <<<"$1" | grep -E '^[0-9]+$' | sort -n |
    awk '{a[NR]=$1} END {print a[int((NR+1)/2)] " ms (" a[1] "-" a[NR] ", n=" NR ")"}'; }
for way in $WAYS; do # a start that answered nothing within 60 s ("failed") is counted apart
    echo "$way: wall median $(median "${wall[$way]}"), cpu median $(median "${cpu[$way]}"), failed: $(tr ' ' '\n' \
        <<<"${wall[$way]}" | grep -c failed)"
done
grep -h "AOT cache" "$WORK/aot.log" 2>/dev/null | tail -1
