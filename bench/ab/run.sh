#!/usr/bin/env bash
# Before and after, interleaved: is change B cheaper than A in one of bench/syscalls' shapes? Single runs on this
# shared machine move by 10% and more, and whole batches drift (the same jar's W8 gave 58.8-63.1 µs per request in
# one quarter hour and 68.6-76.5 in the next), so a comparison only means something between runs next to each other.
# This runs bench/syscalls/run.sh (Loomgate alone, fresh and warmed each time) for A and B in the order
# A B, B A, A B, ... and reports each pair's ratio and in how many pairs B came out cheaper.
#
#   bench/ab/run.sh w8 /tmp/before.jar /tmp/after.jar          # 3 pairs (PAIRS=5 for more)
#   bench/ab/run.sh w2 main HEAD                               # git refs: each built once in a worktree
#   PAIRS=4 bench/ab/run.sh w9-h2c main frame-buffered-wait-2
#   PROXY=loomgate-conscrypt bench/ab/run.sh w9-tls /tmp/before.jar /tmp/after.jar   # server.ssl.provider: conscrypt
#   PROXY=loomgate-conscrypt PAIRS=5 bench/ab/run.sh w5 /tmp/before.jar /tmp/after.jar   # W5: TLS keep-alive /hello
#   CONFIG_B=bench/configs/gateway-bench-traced.yaml TRACING_RATIO=0.01 bench/ab/run.sh w2 x.jar x.jar   # one jar,
#       two configs (CONFIG_A, CONFIG_B: each side's gateway config; the shape's own when unset)
#   GW_PORT=46081 ORIGIN_PORT=46080 ADMIN_PORT=46901 PROXY=loomgate-conscrypt bench/ab/run.sh w5 A.jar B.jar   # on ports
#       of its own, beside a harness run that holds 18080/18081/19901 (bench/syscalls' port variables pass through;
#       from a git worktree outside /work, also SHARED=/work/shared/bench: the default is ../shared beside the checkout)
#
# Shapes and their warm-up as in bench/syscalls (w2, w5, w6, w8, w9-tls, w9-h2c; WARM and CONNS pass through). A jar or a
# git ref for each side; refs are built with ./mvnw into /tmp/loomgate-ab/<commit>.jar (kept for the next run).
# Needs what bench/syscalls needs. Prints, per run, requests/s, CPU µs per request and reads per request, then per
# pair B/A for CPU and reads, and the count of pairs in which B used less CPU: with 3 pairs, 3 of 3 is the least that
# says anything, and a difference smaller than the batch's spread says nothing.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
cd "$ROOT"
SHAPE=${1:?usage: bench/ab/run.sh w2|w5|w6|w8|w9-tls|w9-h2c A B (each a jar or a git ref)}
A=${2:?A: a jar or a git ref}
B=${3:?B: a jar or a git ref}
PAIRS=${PAIRS:-3}
PROXY=${PROXY:-loomgate} # or loomgate-conscrypt (bench/syscalls' proxy of that name; TLS shapes only)
CACHE=/tmp/loomgate-ab
JAVA_HOME=${JAVA_HOME:-$(ls -d /usr/lib/jvm/temurin-25* | head -1)}
export JAVA_HOME

jar_of() { # a jar path, or a git ref built once into $CACHE/<commit>.jar; prints the jar's path
    if [[ -f $1 ]]; then echo "$1"; return; fi
    local sha tree
    sha=$(git rev-parse --verify --quiet "$1^{commit}") || { echo "neither a file nor a git ref: $1" >&2; exit 2; }
    if [[ ! -f $CACHE/$sha.jar ]]; then
        mkdir -p "$CACHE"
        tree=$CACHE/tree-$sha
        git worktree add --detach --force "$tree" "$sha" > /dev/null 2>&1
        echo "building $1 ($sha) in $tree" >&2
        (cd "$tree" && ./mvnw -B -q -o package -DskipTests -pl loomgate-cli -am >&2 2>&1 ||
            ./mvnw -B -q package -DskipTests -pl loomgate-cli -am >&2)
        cp "$tree/loomgate-cli/target/loomgate-gateway.jar" "$CACHE/$sha.jar"
        git worktree remove --force "$tree"
    fi
    echo "$CACHE/$sha.jar"
}
JAR_A=$(jar_of "$A")
JAR_B=$(jar_of "$B")

measure() { # side jar: one bench/syscalls run; prints "cpu rps reads load"
    local out config
    if [[ $1 == A ]]; then config=${CONFIG_A:-}; else config=${CONFIG_B:-}; fi
    out=$(CONFIG=$config PROXIES=$PROXY ROUNDS=1 JAR=$2 "$ROOT/bench/syscalls/run.sh" "$SHAPE" 2>&1)
    awk '/^round/ { for (i = 1; i <= NF; i++) { if ($i == "req/s") rps = $(i - 1); if ($i == "CPU") cpu = $(i + 1)
                                                 if ($i == "load") load = $(i + 1) } }
         /system calls per request/ { for (i = 1; i <= NF; i++) if ($i == "read") reads = $(i + 1) }
         END { if (cpu == "") exit 1; printf "%s %s %s %s\n", cpu, rps, (reads == "" ? 0 : reads), load }' <<< "$out" || {
        echo "$1: bench/syscalls gave no figures:" >&2; echo "$out" >&2; exit 1; }
}

echo "shape $SHAPE, $PAIRS pairs, $PROXY: A = $A ($JAR_A${CONFIG_A:+, $CONFIG_A}), B = $B ($JAR_B${CONFIG_B:+, $CONFIG_B})"
printf '%-5s %-4s %-5s %9s %12s %9s %6s\n' pair side time req/s "CPU µs/req" reads/req load
results=()
for ((p = 1; p <= PAIRS; p++)); do
    if ((p % 2)); then order="A B"; else order="B A"; fi
    for side in $order; do
        if [[ $side == A ]]; then jar=$JAR_A; else jar=$JAR_B; fi
        read -r cpu rps reads load < <(measure "$side" "$jar")
        printf '%-5s %-4s %-5s %9s %12s %9s %6s\n' "$p" "$side" "$(date +%H:%M)" "$rps" "$cpu" "$reads" "$load"
        results+=("$p $side $cpu $reads")
    done
done
printf '%s\n' "${results[@]}" | awk -v pairs="$PAIRS" '
    { cpu[$1, $2] = $3; reads[$1, $2] = $4 }
    END {
        print "B/A per pair (CPU µs per request; reads per request):"
        for (p = 1; p <= pairs; p++) {
            r = cpu[p, "B"] / cpu[p, "A"]; ratios[p] = r
            if (r < 1) cheaper++
            printf "  pair %d: CPU %.3f  reads %.3f\n", p, r, (reads[p, "A"] > 0 ? reads[p, "B"] / reads[p, "A"] : 0)
        }
        for (i = 2; i <= pairs; i++) # insertion sort: mawk has no asort
            for (j = i; j > 1 && ratios[j - 1] > ratios[j]; j--) { t = ratios[j]; ratios[j] = ratios[j - 1]; ratios[j - 1] = t }
        median = pairs % 2 ? ratios[(pairs + 1) / 2] : (ratios[pairs / 2] + ratios[pairs / 2 + 1]) / 2
        printf "B used less CPU than A in %d of %d pairs; median B/A %.3f\n", cheaper + 0, pairs, median
    }'
