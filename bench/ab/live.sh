#!/usr/bin/env bash
# Before and after, side by side: every gateway jar given runs at once, each beside the same Go origin, and the
# measured windows go to each in turn (A B, then B A, ...), so every side sees the machine's load of the same minutes.
# bench/ab/run.sh starts each side fresh, one after another; on a machine shared with other work (load 3-13 during
# session 61) its CPU figures drift with the load between runs, and a difference under ~15 % says nothing. Here the
# sides are warmed once and then alternate every WIN seconds, and each window also counts what does not depend on the
# load: system calls per request by kind (perf's syscall tracepoints, counted in the kernel) and context switches;
# optionally bytes allocated (the JVM's own counter) and a CPU profile per window (async-profiler, AP=).
#
#   bench/ab/live.sh base=/tmp/base.jar head=/tmp/head.jar                     # W1 200's shape (below)
#   CONNS=50 LATENCY=0 URLPATH=/hello bench/ab/live.sh a=A.jar b=B.jar          # W2 50's shape
#   bench/ab/live.sh base=/tmp/b.jar@/tmp/b.aot head=/tmp/h.jar@/tmp/h.aot     # each with its AOT cache, as served
#   AP=/tmp/loomgate-alloc/ap/linux-x64/libasyncProfiler.so bench/ab/live.sh ...  # + a CPU profile per window
#   bench/ab/live.sh base=/tmp/b.jar head=/tmp/h.jar hap=haproxy   # + HAProxy (the harness's haproxy-t1: one thread)
#       as a side of its own, so the Loomgate / HAProxy ratio comes from the same minutes (no profile, no allocation)
#
# Shape: wrk -t1 -cCONNS (200) URLPATH (/api/data) against each gateway (bench/configs/gateway-bench.yaml, its ports
# rewritten), the harness's Go origin answering after LATENCY (100ms): W1 200 of ../shared/bench/run.sh. Pinning as
# there: the gateways on core 0, wrk and the origin on core 1 (niced). Each side is warmed WARM s (30), then ROUNDS
# (4) rounds of one WIN s (20) window per side. The JVM flags are the launcher's serve defaults (./loomgate), plus
# JVM_ARGS; a side given as NAME=JAR@AOT also gets -XX:AOTCache=AOT (the cache must be the one ./loomgate build made
# for that jar, with those flags).
#
# Per window one line: requests, system calls per request, bytes allocated per request (jvm_gc_memory_allocated_bytes,
# counted at each GC, so only roughly within one window: sum the rounds), CPU µs per request (perf's task-clock, and
# user/system from /proc), context switches per request, the load average; then the system calls by kind. Everything
# goes to OUT (default /tmp/loomgate-live-ab/<time>): summary.txt, each window's wrk and perf output and profile
# (NAME.rN.cpu.collapsed, 1 ms samples; compare sides with bench/ab/live-profile.py OUT NAME_A NAME_B).
# Ports: origin PORT0 (29680), gateway i at PORT0+1+i, its admin at PORT0+11+i (give each person their own PORT0).
set -uo pipefail
[[ $# -ge 1 ]] || { echo "usage: live.sh NAME=JAR[@AOT]..."; exit 2; }
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd); ROOT=$(cd "$HERE/../.." && pwd)
CONNS=${CONNS:-200}; WARM=${WARM:-30}; WIN=${WIN:-20}; ROUNDS=${ROUNDS:-4}; URLPATH=${URLPATH:-/api/data}
LATENCY=${LATENCY:-100ms}; PORT0=${PORT0:-29680}
JAVA=${JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}; JCMD=$(dirname "$JAVA")/jcmd
BACKEND=/tmp/loomgate-bench/bin/backend
[[ -x $BACKEND ]] || { echo "no $BACKEND: run ../shared/bench/run.sh once (it builds the Go origin)"; exit 1; }
OUT=${OUT:-/tmp/loomgate-live-ab/$(date -u +%Y%m%d-%H%M%S)}; mkdir -p "$OUT"
ulimit -n "$(ulimit -Hn)"
SYSCALLS="read write readv writev recvfrom sendto epoll_wait epoll_pwait epoll_ctl futex sched_yield close ioctl fcntl
    setsockopt getsockopt clock_nanosleep nanosleep"
EVENTS=raw_syscalls:sys_enter,task-clock,context-switches$(for s in $SYSCALLS; do printf ',syscalls:sys_enter_%s' "$s"; done)
# the launcher's serve defaults (./loomgate: the AOT cache is trained with exactly these)
SERVE_FLAGS=(-XX:+ExitOnOutOfMemoryError -Xmx176m -Xms40m -XX:NewSize=24m -XX:MaxNewSize=24m -XX:SurvivorRatio=2
    -XX:TargetSurvivorRatio=90 -XX:+UseSerialGC -XX:ReservedCodeCacheSize=64m -XX:MaxMetaspaceSize=128m
    -XX:FlightRecorderOptions=memorysize=2m -XX:TrimNativeHeapInterval=1000 -XX:UserThreadWaitAttemptsAtExit=0
    -XX:+UseCompactObjectHeaders)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null' EXIT
nice taskset -c 1 "$BACKEND" -addr "127.0.0.1:$PORT0" -latency "$LATENCY" > "$OUT/origin.log" 2>&1 & pids+=($!)
names=(); declare -A PID PORT ADMIN
i=0
for side in "$@"; do
    name=${side%%=*}; spec=${side#*=}; jar=${spec%%@*}; aot=; [[ $spec == *@* ]] && aot=${spec#*@}
    port=$((PORT0 + 1 + i)); admin=$((PORT0 + 11 + i)); i=$((i + 1))
    if [[ $spec == haproxy ]]; then # the harness's peer, its ports and pidfile rewritten
        sed -e "s/18081/$port/; s/18080/$PORT0/; s#pidfile .*#pidfile $OUT/$name.pid#" \
            "${SHARED:-$ROOT/../shared/bench}/peers/haproxy-t1.cfg" > "$OUT/$name.cfg"
        taskset -c 0 haproxy -db -f "$OUT/$name.cfg" > "$OUT/$name.log" 2>&1 &
        PID[$name]=$!; PORT[$name]=$port; ADMIN[$name]=; pids+=($!); names+=("$name")
        continue
    fi
    [[ -f $jar ]] || { echo "$name: no jar $jar"; exit 1; }
    sed -e "s/18081/$port/; s/19901/$admin/; s/18080/$PORT0/" "$ROOT/bench/configs/gateway-bench.yaml" > "$OUT/$name.yaml"
    taskset -c 0 "$JAVA" "${SERVE_FLAGS[@]}" ${aot:+-XX:AOTCache=$aot -Xlog:aot=off -Dloomgate.aot-cache=$aot} ${JVM_ARGS:-} \
        -jar "$jar" serve --config "$OUT/$name.yaml" > "$OUT/$name.log" 2>&1 &
    PID[$name]=$!; PORT[$name]=$port; ADMIN[$name]=$admin; pids+=($!); names+=("$name")
done
for name in "${names[@]}"; do
    for _ in $(seq 300); do curl -s -o /dev/null "http://127.0.0.1:${PORT[$name]}/hello" && break; sleep 0.2; done
    curl -s -o /dev/null "http://127.0.0.1:${PORT[$name]}/hello" || { echo "$name did not start (see $OUT/$name.log)"; exit 1; }
done
load() { nice taskset -c 1 wrk -t1 -c"$CONNS" "$@"; }
for name in "${names[@]}"; do load -d"${WARM}s" "http://127.0.0.1:${PORT[$name]}$URLPATH" > "$OUT/$name.warm.txt" 2>&1; done
allocated() { [[ -n $1 ]] || { echo 0; return; }; curl -s "http://127.0.0.1:$1/metrics" | awk '/^jvm_gc_memory_allocated_bytes_total/ { print $2 }'; }
ticks() { awk '{ print $14, $15 }' "/proc/$1/stat"; }
measure() { # NAME ROUND
    local name=$1 w=$OUT/$1.r$2 p=${PID[$1]} pp a0 a1 t0 t1
    perf stat -x, -e "$EVENTS" -p "$p" -o "$w.perf" & pp=$!
    sleep 0.2
    local java=${ADMIN[$name]}
    [[ -n ${AP:-} && -n $java ]] && "$JCMD" "$p" JVMTI.agent_load "$AP" '"start,event=cpu,interval=1ms"' > /dev/null
    a0=$(allocated "${ADMIN[$name]}"); t0=$(ticks "$p")
    load -d"${WIN}s" "http://127.0.0.1:${PORT[$name]}$URLPATH" > "$w.wrk" 2>&1
    a1=$(allocated "${ADMIN[$name]}"); t1=$(ticks "$p")
    kill -INT $pp; wait $pp
    [[ -n ${AP:-} && -n $java ]] && "$JCMD" "$p" JVMTI.agent_load "$AP" "\"stop,file=$w.cpu.collapsed,collapsed\"" > /dev/null
    local q; q=$(awk '/requests in/ { print $1 }' "$w.wrk")
    awk -F, -v n="$name" -v r="$2" -v q="$q" -v a0="$a0" -v a1="$a1" -v t0="$t0" -v t1="$t1" \
        -v load="$(cut -d' ' -f1 /proc/loadavg)" -v errs="$(grep -o 'Non-2xx.*\|Socket errors.*' "$w.wrk" | tr '\n' ' ')" '
        $3 == "raw_syscalls:sys_enter" { sc = $1 } $3 == "task-clock" { tc = $1 } $3 == "context-switches" { cs = $1 }
        $3 ~ /sys_enter_/ && $1 > 0 { k = $3; sub(/syscalls:sys_enter_/, "", k); kinds = kinds sprintf("%s=%.2f ", k, $1 / q) }
        END { split(t0, A, " "); split(t1, B, " ")
              printf "%-8s r%d %d requests, %.2f syscalls/req, %.0f B/req allocated, CPU %.1f us/req (user %.1f, system %.1f), %.2f cs/req, load %s %s\n",
                  n, r, q, sc / q, (a1 - a0) / q, tc * 1000 / q, (B[1] - A[1]) * 1e4 / q, (B[2] - A[2]) * 1e4 / q, cs / q, load, errs
              printf "         %s\n", kinds }' "$w.perf"
}
for r in $(seq "$ROUNDS"); do
    order=("${names[@]}")
    if ((r % 2 == 0)); then order=(); for ((k = ${#names[@]} - 1; k >= 0; k--)); do order+=("${names[$k]}"); done; fi
    for name in "${order[@]}"; do measure "$name" "$r" | tee -a "$OUT/summary.txt"; done
done
echo "--- $OUT"
