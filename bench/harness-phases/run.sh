#!/usr/bin/env bash
# The harness's own sequence for one workload (W9 or W8), phase by phase: how a proxy's CPU per request moves from its
# start to steady state, and how much of Loomgate's is the JIT compiler's. ../shared/bench/run.sh measures the whole
# process (compiler threads included) in one 10 s window after its own warm-up: for the tls family (W9) wrk over TLS,
# HTTP/1.1 `/hello` at 256 connections in 5 s rounds until requests/s rises by 5% or less (at most 90 s), which does
# not touch the HTTP/2 path, then 3 s of h2load and a second's pause before the window; for the h2c family (W8) the
# same rounds with h2load at W8's shape. This runs that sequence with the same tools, pinning and rule, on ports of its
# own (so a harness or bench/syscalls run elsewhere does not collide), then MORE windows of 10 s each, and prints per
# phase: seconds since the proxy's exec, requests, requests/s, CPU µs per request (the harness's figure), the C1 and
# C2 compiler threads' and the VM thread's (SerialGC's collections) seconds in it, the CPU per request without
# the compiler threads, the carriers' CPU per request (the virtual threads' work) and every other thread's seconds.
#
#   bench/harness-phases/run.sh w9                      # PROXIES="haproxy jar launcher" ROUNDS=2 MORE=6
#   PROXIES="haproxy launcher launcher-noaot" ROUNDS=3 bench/harness-phases/run.sh w9
#   bench/harness-phases/run.sh w8
#   JFR=1 WARM_FIXED=4 PROXIES=launcher bench/harness-phases/run.sh plain   # the plain warm-up's JIT census per round
#   COUNT=40000 WARM_RUNS=11 PROXIES="base launcher" bench/harness-phases/run.sh plain > c.txt
#   bench/harness-phases/quiet-warm.py c.txt            # ... and the warm_s a quiet machine would read from it
#
# Proxies: haproxy (the harness's peer haproxy-t1, its TLS or h2c config), jar (`java -jar loomgate.jar serve`, JDK
# 25, no flags: the command the harness was given up to stop 36), launcher (`./loomgate serve`: the product's way,
# with its JVM flags and, when `./loomgate build` trained one, its AOT cache), launcher-noaot (the same with
# -XX:AOTMode=off), base (BASE/loomgate serve: another build's launcher, jars and AOT cache, for A/B pairs in one run;
# base<x>: BASE_<x>/loomgate, so three or more builds alternate in one run).
# LOOMGATE_JAVA_OPTS passes through to the launcher variants. CONFIG: the gateway config (default
# bench/configs/gw-tls-conscrypt.yaml for w9, gw-h2c.yaml for w8), its ports rewritten.
# opt<x>: the launcher with the JVM flags in OPTS_opt<x> (flag variants alternated in one run); bare<x>: the
# launcher's flags without a cache plus OPTS_bare<x> (for flags a trained cache cannot be used with).
# JFR=1: a JFR recording per JVM run (jit.jfc: compilations, deoptimisations, queues, code cache, class loading, GCs)
# and jit-census.py's census per phase after each run; KEEP=dir keeps the recordings and the phases' spans.
# JFC=file: other JFR settings (jit-stacks.jfc: the deoptimisations' stacks and the exceptions, for deopt-stacks.py).
# COMPILES=1: the JVM prints each compilation (-XX:+PrintCompilation into the proxy's log) and each phase's line ends
# with the count of C2 (tier 4) and C1 (tiers 1-3) compilations started in it: a count the machine's load does not
# change the way it changes CPU.
# COUNT=n (for a loaded machine, where a 10 s window holds whatever the machine lets through): every phase is n
# requests instead (the warm-up WARM_RUNS=3 runs of h2load --h1 at 256 connections, then the h2 phases), so that the
# compilations and the threads' CPU of each phase answer the same work at any load.
# Needs what the harness needs (wrk, h2load, haproxy) and one earlier ../shared/bench/run.sh with a TLS workload (its
# origin binary and certificate in /tmp/loomgate-bench). Ports: ORIGIN_PORT (28180), PORT (28181), ADMIN_PORT (28191).
# Only processes started here are stopped, by pid.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
cd "$ROOT"
SHAPE=${1:?usage: bench/harness-phases/run.sh w9|w8|plain}
SHARED=${SHARED:-$(cd "$ROOT/../shared/bench" && pwd)}
export JAVA_HOME=${JAVA_HOME:-$(ls -d /usr/lib/jvm/temurin-25* | head -1)}
JAVA=$JAVA_HOME/bin/java
FULL_JAR=${FULL_JAR:-$ROOT/loomgate-cli/target/loomgate.jar}
ORIGIN_PORT=${ORIGIN_PORT:-28180} PORT=${PORT:-28181} ADMIN_PORT=${ADMIN_PORT:-28191}
ROUNDS=${ROUNDS:-2} MORE=${MORE:-6} WARM_MAX=${WARM_MAX:-90}
WORK=${WORK:-/tmp/harness-phases}
mkdir -p "$WORK"
export BENCH_TLS_CERT=/tmp/loomgate-bench/tls/cert.pem BENCH_TLS_KEY=/tmp/loomgate-bench/tls/key.pem
export BENCH_TLS_PEM=/tmp/loomgate-bench/tls/bench.pem
case $SHAPE in
    w9) URL=https://127.0.0.1:$PORT HAP=haproxy-t1-tls.cfg CONFIG=${CONFIG:-bench/configs/gw-tls-conscrypt.yaml}
        CLIENTS=200 PATH_=/api/data ;;
    w8) URL=http://127.0.0.1:$PORT HAP=haproxy-t1-h2c.cfg CONFIG=${CONFIG:-bench/configs/gw-h2c.yaml}
        CLIENTS=100 PATH_=/hello ;;
    plain) # the plain family's warm-up alone (W1-W4 follow it in the harness): wrk /hello at 256 connections over
           # plain HTTP/1.1; WARM_FIXED=n runs n 5 s rounds whatever the curve (the harness's warm_s is then read off it)
        URL=http://127.0.0.1:$PORT HAP=haproxy-t1.cfg CONFIG=${CONFIG:-bench/configs/gateway-bench.yaml}
        CLIENTS=256 PATH_=/hello ;;
    *) echo "unknown shape $SHAPE (w9, w8, plain)" >&2; exit 2 ;;
esac
for p in $ORIGIN_PORT $PORT $ADMIN_PORT; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "port $p is busy" >&2; exit 1; fi
done
# The configs with this run's ports: the gateway's (listener, admin, route) and HAProxy's (bind, server, pidfile).
sed -e "s/18081/$PORT/; s/19901/$ADMIN_PORT/; s/18080/$ORIGIN_PORT/" "$CONFIG" > "$WORK/gateway.yaml"
sed -e "s/127.0.0.1:18081/127.0.0.1:$PORT/; s/127.0.0.1:18080/127.0.0.1:$ORIGIN_PORT/" \
    -e "s|pidfile .*|pidfile $WORK/haproxy.pid|" "$SHARED/peers/$HAP" > "$WORK/haproxy.cfg"
ulimit -n "$(ulimit -Hn)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
taskset -c 1 /tmp/loomgate-bench/bin/backend -addr "127.0.0.1:$ORIGIN_PORT" -latency 100ms > /dev/null 2>&1 &
pids+=($!)

start_proxy() { # name: starts it on core 0 (as the harness: `taskset -c 0 bash -c "exec $CMD"`); sets P and T0
    T0=$(date +%s.%N)
    local JIT_LOG=${JIT_LOG//@NAME@/$1-$round}
    case $1 in
        haproxy) taskset -c 0 haproxy -db -f "$WORK/haproxy.cfg" > "$WORK/$1.log" 2>&1 & ;;
        jar) taskset -c 0 "$JAVA" $JIT_LOG -jar "$FULL_JAR" serve --config "$WORK/gateway.yaml" > "$WORK/$1.log" 2>&1 & ;;
        launcher) LOOMGATE_JAVA_OPTS="${LOOMGATE_JAVA_OPTS:-} $JIT_LOG ${OPTS_launcher:-}" taskset -c 0 "$ROOT/loomgate" serve --config "$WORK/gateway.yaml" > "$WORK/$1.log" 2>&1 & ;;
        base*) # another build's launcher, with its own jars and AOT cache (BASE: its directory), for A/B pairs;
            # base<x> uses BASE_<x> when set (several builds alternated in one run, e.g. basehead basenosplit)
            local dir=BASE_${1#base}
            LOOMGATE_JAVA_OPTS="${LOOMGATE_JAVA_OPTS:-} $JIT_LOG ${OPTS_base:-}" taskset -c 0 "${!dir:-${BASE:?BASE=dir of the other launcher}}/loomgate" serve \
                --config "$WORK/gateway.yaml" > "$WORK/$1.log" 2>&1 & ;;
        launcher-noaot) LOOMGATE_JAVA_OPTS="${LOOMGATE_JAVA_OPTS:-} -XX:AOTMode=off $JIT_LOG" \
            taskset -c 0 "$ROOT/loomgate" serve --config "$WORK/gateway.yaml" > "$WORK/$1.log" 2>&1 & ;;
        flags-aot|flags-aot-eager) # the launcher's JVM flags with the cache AOT_FILE (e.g. one trained by hand) and
            # JVM_EXTRA; -eager: the JDK 25's experimental -XX:+AOTCompileEagerly (compile what the training compiled
            # as soon as its classes are initialised)
            local eager=""
            [[ $1 == flags-aot-eager ]] && eager="-XX:+UnlockExperimentalVMOptions -XX:+AOTCompileEagerly"
            taskset -c 0 "$JAVA" -XX:+ExitOnOutOfMemoryError -Xmx256m -Xms16m -XX:+UseSerialGC \
                -XX:ReservedCodeCacheSize=64m -XX:MaxMetaspaceSize=128m -XX:FlightRecorderOptions=memorysize=2m \
                -XX:+UseCompactObjectHeaders "-XX:AOTCache=$AOT_FILE" -Xlog:aot=off "-Dloomgate.aot-cache=$AOT_FILE" \
                ${JVM_EXTRA:-} $eager $JIT_LOG -jar "$ROOT/loomgate-cli/target/loomgate-gateway.jar" serve \
                --config "$WORK/gateway.yaml" > "$WORK/$1.log" 2>&1 & ;;
        bare*) # the launcher's JVM flags without any cache, plus OPTS_<name>: for flags that change what a cache holds
            # (e.g. -XX:-ProfileExceptionHandlers changes the method data's layout, so the trained cache cannot be used)
            local extra=OPTS_$1
            taskset -c 0 "$JAVA" -XX:+ExitOnOutOfMemoryError -Xmx176m -Xms40m -XX:NewSize=24m -XX:MaxNewSize=24m \
                -XX:SurvivorRatio=2 -XX:TargetSurvivorRatio=90 -XX:+UseSerialGC -XX:ReservedCodeCacheSize=64m \
                -XX:MaxMetaspaceSize=128m \
                -XX:FlightRecorderOptions=memorysize=2m -XX:+UseCompactObjectHeaders ${!extra:-} $JIT_LOG \
                -jar "$ROOT/loomgate-cli/target/loomgate-gateway.jar" serve --config "$WORK/gateway.yaml" \
                > "$WORK/$1.log" 2>&1 & ;;
        opt*) # the launcher with the JVM flags in OPTS_<name> (e.g. OPTS_opt1="-XX:Tier4InvocationThreshold=2000"),
            # several named variants alternated with the launcher in one run
            local extra=OPTS_$1
            LOOMGATE_JAVA_OPTS="${LOOMGATE_JAVA_OPTS:-} $JIT_LOG ${!extra:-}" taskset -c 0 "$ROOT/loomgate" serve \
                --config "$WORK/gateway.yaml" > "$WORK/$1.log" 2>&1 & ;;
        *) echo "unknown proxy $1" >&2; exit 2 ;;
    esac
    P=$!
    pids+=("$P")
    local deadline=$((SECONDS + 120))
    while ((SECONDS < deadline)); do
        if [[ $SHAPE != w8 ]]; then
            curl -sk -o /dev/null -m 2 "$URL/hello" 2>/dev/null && return 0
        else
            curl -s --http2-prior-knowledge -o /dev/null -m 2 "$URL/hello" 2>/dev/null && return 0
        fi
        kill -0 "$P" 2>/dev/null || break
        sleep 0.2
    done
    echo "$1 did not answer; see $WORK/$1.log" >&2
    exit 1
}

# Clock ticks of the whole process (its stat counts exited threads too), and of its C1 and C2 compiler threads, the
# VM thread (where SerialGC collects) and the virtual threads' carriers (ForkJoinPool-1-worker-*: the gateway's own
# work, TLS included), from each thread's stat (the name is the field in parentheses).
snap() {
    local total
    total=$(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$P/stat")
    cat /proc/"$P"/task/*/stat 2>/dev/null | awk -v total="$total" '
        { o = index($0, "("); c = 0; for (k = length($0); k > o; k--) if (substr($0, k, 1) == ")") { c = k; break }
          name = substr($0, o + 1, c - o - 1); split(substr($0, c + 2), a, " "); t = a[12] + a[13]
          if (name ~ /^C1 Compiler/) c1 += t; else if (name ~ /^C2 Compiler/) c2 += t; else if (name == "VM Thread") vm += t
          else if (name ~ /^ForkJoinPool/) fj += t }
        END { printf "%d %d %d %d %d\n", total, c1, c2, vm, fj }'
}

load_for() { # kind seconds: one load run; prints the requests it completed. With COUNT set, a run of COUNT requests
             # instead (wrk's part by h2load --h1: HTTP/1.1 over TLS as well), whatever the time it takes
    local out
    if [[ -n ${COUNT:-} ]]; then
        if [[ $1 == wrk ]]; then
            out=$(timeout 600 taskset -c 1 h2load --h1 -t1 -c256 -n"$COUNT" "$URL/hello" 2>&1 || true)
        else
            out=$(timeout 600 taskset -c 1 h2load -t1 -c"$CLIENTS" -m10 -n"$COUNT" "$URL$PATH_" 2>&1 || true)
        fi
        awk '/^requests:/ { print $8 }' <<< "$out"
    elif [[ $1 == wrk ]]; then
        out=$(taskset -c 1 wrk -t1 -c256 -d"$2"s --timeout 5s "$URL/hello" 2>&1 || true)
        awk '/requests in/ { print $1 }' <<< "$out"
    else
        out=$(timeout $(($2 + 60)) taskset -c 1 h2load -t1 -c"$CLIENTS" -m10 -D"$2" "$URL$PATH_" 2>&1 || true)
        awk '/^requests:/ { print $8 }' <<< "$out"
    fi
}

HZ=$(getconf CLK_TCK)
JIT_LOG=""; [[ ${COMPILES:-0} == 1 ]] && JIT_LOG=-XX:+PrintCompilation
# JFR=1: a recording per JVM run of every compilation and deoptimisation (jit.jfc), and each phase's wall-clock span,
# for jit-census.py (the census per phase: compilations by tier, C2's largest, deoptimisations by reason, methods
# compiled at tier 4 more than once, the queues and the code cache)
if [[ ${JFR:-0} == 1 ]]; then
    JIT_LOG+=" -XX:StartFlightRecording=filename=$WORK/@NAME@.jfr,settings=${JFC:-$HERE/jit.jfc}"
fi
compiles() { # from to (ms since exec): "C2 n C1 m", compilations started in that span (the log's first field: ms
             # since the JVM started, a few ms after exec)
    [[ -n $JIT_LOG && $PROXY != haproxy ]] || return 0
    awk -v a="$1" -v b="$2" '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && !/made not entrant|made zombie/ {
            if ($1 < a || $1 >= b) next
            for (i = 3; i <= NF; i++) if ($i ~ /^[0-4]$/) { if ($i == 4) c2++; else if ($i > 0) c1++; break } }
        END { printf " C2 %d C1 %d", c2, c1 }' "$WORK/$PROXY.log"
}
phase() { # proxy round label kind seconds: one measured load run and its line
    local s0 s1 t0 t1 n
    read -r -a s0 < <(snap); t0=$(date +%s.%N)
    n=$(load_for "$4" "$5"); n=${n:-0}
    read -r -a s1 < <(snap); t1=$(date +%s.%N)
    PHASES+=("$3 $(awk -v a="$t0" -v b="$t1" -v T0="$T0" 'BEGIN { printf "%d %d", (a - T0) * 1000, (b - T0) * 1000 }')")
    [[ ${JFR:-0} == 1 ]] && echo "$3 $t0 $t1 $n" >> "$WORK/$1-$2.phases"
    awk -v p="$1" -v r="$2" -v l="$3" -v n="$n" -v t0="$t0" -v t1="$t1" -v T0="$T0" -v hz="$HZ" \
        -v tot=$((s1[0] - s0[0])) -v c1=$((s1[1] - s0[1])) -v c2=$((s1[2] - s0[2])) -v vm=$((s1[3] - s0[3])) \
        -v fj=$((s1[4] - s0[4])) -v load="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN {
        d = t1 - t0; us = n > 0 ? tot / hz * 1e6 / n : 0; nojit = n > 0 ? (tot - c1 - c2) / hz * 1e6 / n : 0
        car = n > 0 ? fj / hz * 1e6 / n : 0
        printf "%-15s %2s %-10s %5.0f %7d %7.0f %5.0f%% %8.1f %8.1f %5.1f %5.1f %5.1f %8.1f %5.1f %5s\n", p, r, l, t1 - T0,
            n, n / d, tot / hz / d * 100, us, nojit, c1 / hz, c2 / hz, vm / hz, car, (tot - c1 - c2 - vm - fj) / hz,
            load }'
    LAST_RPS=$(awk -v n="$n" -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%.0f", n / (t1 - t0) }')
}

echo "# $(date -u +%FT%TZ) shape $SHAPE, config $CONFIG, $("$JAVA" -version 2>&1 | head -1), load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-15s %2s %-10s %5s %7s %7s %6s %8s %8s %5s %5s %5s %8s %5s %5s\n' proxy rd phase t_s requests req/s CPU \
    "us/req" "-JIT" "C1_s" "C2_s" "VM_s" "carr/req" "oth_s" load
for round in $(seq "$ROUNDS"); do
    for proxy in ${PROXIES:-haproxy jar launcher}; do
        PROXY=$proxy PHASES=()
        rm -f "$WORK/$proxy-$round.phases" "$WORK/$proxy-$round.jfr"
        start_proxy "$proxy"
        # the harness's warm-up: 5 s rounds until requests/s rises by 5% or less, at most WARM_MAX s
        best=0 k=0 w0=$SECONDS
        kind=wrk; [[ $SHAPE == w8 ]] && kind=h2load
        while ((SECONDS - w0 < WARM_MAX)); do
            k=$((k + 1))
            phase "$proxy" "$round" "warm-$k" $kind 5
            if [[ -n ${COUNT:-} ]]; then ((k >= ${WARM_RUNS:-3})) && break; continue; fi
            if [[ -n ${WARM_FIXED:-} ]]; then ((k >= WARM_FIXED)) && break; continue; fi
            ((k >= 2 && LAST_RPS * 100 <= best * 105)) && break
            ((LAST_RPS > best)) && best=$LAST_RPS
        done
        if [[ $SHAPE != plain ]]; then
            phase "$proxy" "$round" "pre-3s" h2load 3
            sleep 1
            phase "$proxy" "$round" "WINDOW" h2load 10 # the harness's measured window
            for m in $(seq "$MORE"); do phase "$proxy" "$round" "more-$m" h2load 10; done
        fi
        if [[ ${COMPILES:-0} == 1 && $proxy != haproxy ]]; then
            line="    compilations started per phase:"
            for ph in "${PHASES[@]}"; do read -r name a b <<< "$ph"; line+=" $name:$(compiles "$a" "$b")"; done
            echo "$line"
        fi
        echo "    rss after the phases: $(awk '/^VmRSS|^VmHWM/ { printf "%s %d MiB  ", $1, $2 / 1024 }' "/proc/$P/status")"
        grep -h "AOT cache\|TLS provider" "$WORK/$proxy.log" 2>/dev/null | head -2 | sed 's/^/    log: /' || true
        kill "$P"; wait "$P" 2>/dev/null || true
        if [[ ${JFR:-0} == 1 && $proxy != haproxy && -s $WORK/$proxy-$round.jfr ]]; then
            python3 "$HERE/jit-census.py" "$WORK/$proxy-$round.jfr" "$WORK/$proxy-$round.phases" "$T0" | sed 's/^/    /'
            [[ -n ${KEEP:-} ]] && mkdir -p "$KEEP" && cp "$WORK/$proxy-$round.jfr" "$WORK/$proxy-$round.phases" "$KEEP/" || true
        fi
        sleep 2
    done
done
