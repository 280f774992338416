#!/usr/bin/env bash
# Two builds' time to the first request, alternated round by round (A, B, A, B, ...) against one origin: exec of the
# gateway to its first 200 through a route and the process's CPU by then (ttfr.py), each jar on its own AOT cache made
# by its own `aot-train` with the bench's flags (run.sh's "aot" way), then each one's median and range, and the ratio
# B/A of each round. The load average is printed with every round: on a shared machine compare only rounds of one run.
#   bench/startup/ab.sh A_JAR A_FULL_JAR B_JAR B_FULL_JAR      ROUNDS=9 NICE=-5 FLAGS="..." WORK=... JAVA=...
# A_JAR/B_JAR: gateway jars (loomgate-gateway.jar); *_FULL_JAR: the full jars whose aot-train and backend are used.
# NICE: the niceness of the timed runs (negative needs root): less of the other jobs' noise in the wall times. With
# the kernel's autogroups on (/proc/sys/kernel/sched_autogroup_enabled), a process's nice counts only against the
# processes of its own session, so the script then runs in a session of its own and gives that session's group the
# niceness too (/proc/self/autogroup): the timed runs, and nothing else of the machine, get that weight.
# FLAGS: the JVM flags of the training and the timed runs; the default is run.sh's; LAUNCHER_FLAGS=1 takes the
# launcher's (its AOT_FLAGS, with which `./loomgate build` trains the cache serve uses).
# A_OPTS/B_OPTS: JVM flags for one way only, in its training and its timed runs (a flag that changes what the cache
# holds, e.g. -XX:+AOTAdapterCaching); A_RUN_OPTS/B_RUN_OPTS: in its timed runs only (a JIT flag, on the same cache).
# Two ways of one jar: pass the same jars twice; SAME_CACHE=1 (for run-time flags only) then times B on A's jar and
# cache, so the two ways differ by the flags alone, not by two trainings (which differ: docs/deployment.md).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
[[ $# -eq 4 ]] || { sed -n 2,11p "$0" >&2; exit 2; }
JAVA=${JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
ROUNDS=${ROUNDS:-9}
NICE=${NICE:-0}
PORT=${PORT:-24291} ORIGIN_PORT=${ORIGIN_PORT:-24290}
WORK=${WORK:-/tmp/loomgate-startup-ab}
if [[ ${LAUNCHER_FLAGS:-0} == 1 ]]; then
    eval "$(sed -n '/^AOT_FLAGS=(/,/)$/p' "$ROOT/loomgate")" # the launcher's array, as it trains and serves
    FLAGS=("${AOT_FLAGS[@]}" -XX:+ExitOnOutOfMemoryError)
else
    read -r -a FLAGS <<<"${FLAGS:--Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -XX:+ExitOnOutOfMemoryError}"
fi
if [[ $NICE != 0 && $(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null) == 1 && -z ${AB_SESSION:-} ]]; then
    AB_SESSION=1 exec setsid --wait "$0" "$@"
fi
if [[ $NICE != 0 && -n ${AB_SESSION:-} ]]; then
    echo "$NICE" >/proc/self/autogroup
fi
mkdir -p "$WORK/a" "$WORK/b"
cat >"$WORK/gateway.yaml" <<YAML
server: { address: 127.0.0.1, port: $PORT }
admin: { port: 0 }
routes:
  - { id: origin, uri: "http://127.0.0.1:$ORIGIN_PORT", predicates: [ "Path=/**" ] }
YAML
# Each jar copied with its time (the JVM refuses a cache whose jar's time changed) and trained once per content,
# flags and time (a cache of another jar at the same path would be mapped without a word by JDK 25.0.3).
prepare() { # way jar full_jar
    local w=$WORK/$1 id opts=${1^^}_OPTS
    local -a extra
    read -r -a extra <<<"${!opts:-}"
    cp -p "$2" "$w/gateway.jar"
    id="$(sha256sum "$w/gateway.jar" | cut -d' ' -f1) $(stat -c %Y "$w/gateway.jar") ${FLAGS[*]} ${extra[*]}"
    if [[ $(cat "$w/gateway.aot.id" 2>/dev/null) != "$id" ]]; then
        rm -f "$w/gateway.aot"
        "$JAVA" -jar "$3" aot-train --java "$JAVA" --jar "$w/gateway.jar" --output "$w/gateway.aot" -- "${FLAGS[@]}" \
            "${extra[@]}" >"$w/train.log" 2>&1 || { cat "$w/train.log" >&2; exit 1; }
        echo "$id" >"$w/gateway.aot.id"
    fi
}
prepare a "$1" "$2"
if [[ ${SAME_CACHE:-0} == 1 ]]; then
    [[ -z ${B_OPTS:-} ]] || { echo "SAME_CACHE=1 takes B_RUN_OPTS, not B_OPTS (a flag the cache is made with)" >&2; exit 2; }
else
    prepare b "$3" "$4"
fi
"$JAVA" -jar "$2" backend --port "$ORIGIN_PORT" >"$WORK/origin.log" 2>&1 &
origin=$!
trap 'kill $origin 2>/dev/null' EXIT
# The origin must answer before the first timed run, or that run times the origin's start too.
for ((i = 0; i < 600; i++)); do
    curl -fsS -o /dev/null "http://127.0.0.1:$ORIGIN_PORT/hello" 2>/dev/null && break
    sleep 0.1
done
echo "# $(date -u +%FT%TZ) $("$JAVA" -version 2>&1 | sed -n 2p); flags: ${FLAGS[*]}; nice $NICE" \
    "(autogroup: $(cat /proc/self/autogroup 2>/dev/null || echo none))"
echo "# A: $1 ($(stat -c %s "$1") bytes)  B: $3 ($(stat -c %s "$3") bytes)"
[[ -n ${A_OPTS:-}${A_RUN_OPTS:-}${B_OPTS:-}${B_RUN_OPTS:-} ]] &&
    echo "# A's own flags: ${A_OPTS:-} ${A_RUN_OPTS:-}  B's own flags: ${B_OPTS:-} ${B_RUN_OPTS:-}"
declare -A wall cpu
ratios="" cpuratios=""
for ((r = 1; r <= ROUNDS; r++)); do
    line="round $r (load $(cut -d' ' -f1 /proc/loadavg)):"
    for way in a b; do
        w=$WORK/$way opts=${way^^}_OPTS runopts=${way^^}_RUN_OPTS
        [[ $way == b && ${SAME_CACHE:-0} == 1 ]] && w=$WORK/a
        read -r -a own <<<"${!opts:-} ${!runopts:-}"
        read -r ms cpums < <(TTFR_LOG=$WORK/$way/serve.log nice -n "$NICE" "$HERE/ttfr.py" "$PORT" /hello -- "$JAVA" \
            "${FLAGS[@]}" "${own[@]}" "-XX:AOTCache=$w/gateway.aot" -Xlog:aot=off "-Dloomgate.aot-cache=$w/gateway.aot" \
            -jar "$w/gateway.jar" serve --config "$WORK/gateway.yaml" --no-watch)
        wall[$way]+="$ms "
        cpu[$way]+="${cpums:-} "
        line+=" ${way^^} $ms ms${cpums:+ (cpu $cpums ms)}"
        eval "last_$way=$ms lastcpu_$way=${cpums:-x}"
    done
    if [[ $last_a =~ ^[0-9]+$ && $last_b =~ ^[0-9]+$ ]]; then
        ratio=$(awk -v a="$last_a" -v b="$last_b" 'BEGIN {printf "%.2f", b / a}')
        ratios+="$ratio "
        line+=" B/A $ratio"
    fi
    if [[ $lastcpu_a =~ ^[0-9]+$ && $lastcpu_b =~ ^[0-9]+$ && $lastcpu_a != 0 ]]; then
        cpuratios+="$(awk -v a="$lastcpu_a" -v b="$lastcpu_b" 'BEGIN {printf "%.2f", b / a}') "
    fi
    echo "$line"
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
median() { tr ' ' '\n' <<<"$1" | grep -E '^[0-9.]+$' | sort -n |
    awk '{a[NR]=$1} END {print a[int((NR+1)/2)] " (" a[1] "-" a[NR] ", n=" NR ")"}'; }
for way in a b; do
    echo "${way^^}: wall median $(median "${wall[$way]}") ms, cpu median $(median "${cpu[$way]}") ms, failed: $(tr ' ' \
        '\n' <<<"${wall[$way]}" | grep -c failed)"
done
echo "B/A wall per round: median $(median "$ratios"), lower in $(tr ' ' '\n' <<<"$ratios" |
    awk '$1 != "" && $1 < 1 {n++} END {print n + 0}') of $(wc -w <<<"$ratios")"
echo "B/A cpu per round: median $(median "$cpuratios"), lower in $(tr ' ' '\n' <<<"$cpuratios" |
    awk '$1 != "" && $1 < 1 {n++} END {print n + 0}') of $(wc -w <<<"$cpuratios")"
for way in a b; do
    grep -h "AOT cache" "$WORK/$way/serve.log" | tail -1 | sed "s/^/${way^^}: /"
done
