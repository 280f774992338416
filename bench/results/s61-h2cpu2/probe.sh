#!/usr/bin/env bash
# Load-independent counts for one gateway jar in W8's or W9's shape, once warm (session 61, h2cpu2). The machine's
# hardware counters are not exposed here (perf stat: instructions "not supported"), so the counts are system calls
# and context switches per request (perf's tracepoints), CPU (task-clock, user/kernel ticks) per request, and, with
# COUNT=Class.method, how many times a Java method ran per request (async-profiler's method event, every call).
# Usage: probe.sh JAR LABEL SHAPE   (w8: h2c /hello 100x10, instant origin; w9c / w9j: h2 over TLS, Conscrypt /
# JSSE, /api/data 200x10, 100 ms origin). Env: N (requests per window), WARM (s), PROF=1 (a CPU profile window too),
# JVM_ARGS (more JVM flags), LAUNCHER (a checkout's ./loomgate: started through it, with its AOT cache, as the harness does).
set -uo pipefail
JAR=${1:?jar}; LABEL=${2:?label}; SHAPE=${3:?w8|w9c|w9j}
HERE=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd "$HERE/../../.." && pwd)
OUT=${OUTDIR:-$HERE/runs}/$SHAPE-$LABEL; rm -rf "$OUT"; mkdir -p "$OUT"
O=29780; P=29781; A=29782
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java; JCMD=/usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd
AP=${AP:-/tmp/h2cpu-alloc/ap/linux-x64/libasyncProfiler.so}
export BENCH_TLS_CERT=/tmp/loomgate-bench/tls/cert.pem BENCH_TLS_KEY=/tmp/loomgate-bench/tls/key.pem
case $SHAPE in
    w8) CFG=gw-h2c.yaml URL=http://127.0.0.1:$P/hello LAT=0 C=100 N=${N:-100000} ;;
    w9c) CFG=gw-tls-conscrypt.yaml URL=https://127.0.0.1:$P/api/data LAT=100ms C=200 N=${N:-60000} ;;
    w9j) CFG=gw-tls.yaml URL=https://127.0.0.1:$P/api/data LAT=100ms C=200 N=${N:-60000} ;;
esac
sed -e "s/18081/$P/; s/19901/$A/; s/18080/$O/" "$ROOT/bench/configs/$CFG" > "$OUT/gw.yaml"
pids=()
trap 'for p in "${pids[@]}"; do kill $p 2>/dev/null; done; wait 2>/dev/null' EXIT
ulimit -n "$(ulimit -Hn)"
nice -n 10 taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:$O -latency $LAT >/dev/null 2>&1 & pids+=($!)
if [[ -n ${LAUNCHER:-} ]]; then # the checkout's ./loomgate (its flags and AOT cache, as the harness starts it); JAR unused
    JAVA_HOME=$(dirname "$(dirname "$JAVA")") LOOMGATE_JAVA_OPTS="${JVM_ARGS:-}" nice -n 5 taskset -c 0 "$LAUNCHER" serve \
        --config "$OUT/gw.yaml" > "$OUT/gw.log" 2>&1 & GW=$!; pids+=($GW)
else
    nice -n 5 taskset -c 0 $JAVA -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders ${JVM_ARGS:-} -jar "$JAR" serve \
        --config "$OUT/gw.yaml" > "$OUT/gw.log" 2>&1 & GW=$!; pids+=($GW)
fi
for i in $(seq 300); do curl -sk -o /dev/null "$URL" && break; sleep 0.2; done
load() { timeout 300 nice -n 10 taskset -c 1 h2load -t1 -c$C -m10 "$@" "$URL"; }
count() { awk '/^requests:/ { print $8 }' "$1"; }
load -D${WARM:-40} > "$OUT/warm.txt" 2>&1
ev=task-clock,context-switches
for s in read write readv writev recvfrom sendto epoll_wait epoll_ctl futex sched_yield fcntl ioctl connect close socket accept4 setsockopt; do ev=$ev,syscalls:sys_enter_$s; done
c2() { local t s=0; for t in /proc/$GW/task/*; do [[ $(cat $t/comm 2>/dev/null) == C[12]* ]] && s=$((s + $(awk '{ print $14 + $15 }' $t/stat))); done; echo $s; }
j0=$(c2); u0=$(awk '{ print $14, $15 }' /proc/$GW/stat)
perf stat -x, -e "$ev" -p $GW -o "$OUT/perf.csv" & PS=$!
load -n$N > "$OUT/load.txt" 2>&1
kill -INT $PS; wait $PS 2>/dev/null
u1=$(awk '{ print $14, $15 }' /proc/$GW/stat); j1=$(c2)
n=$(count "$OUT/load.txt")
{
awk -v l="$LABEL" -v s="$SHAPE" -v n="$n" -v a="$u0" -v b="$u1" -v j=$((j1 - j0)) -v load="$(cut -d' ' -f1 /proc/loadavg)" -v t="$(date -u +%H:%M:%S)" \
  'BEGIN { split(a, x, " "); split(b, y, " "); printf "%s %s %s: %d requests, user %.1f kernel %.1f us/request, of which the JIT %.1f (load %s)\n", t, s, l, n, (y[1]-x[1])*10000/n, (y[2]-x[2])*10000/n, j*10000/n, load }'
awk -F, -v n="$n" '$1 + 0 > 0 { sub("syscalls:sys_enter_", "", $3); v = $1 / n; if ($3 == "task-clock") { $3 = "task-clock-us"; v = $1 * 1000 / n }
      line = line sprintf(" %s %.3f", $3, v) } END { print "   per request:" line }' "$OUT/perf.csv"
} | tee "$OUT/summary.txt"
if [[ -n ${COUNT:-} ]]; then
    for m in $COUNT; do
        $JCMD $GW JVMTI.agent_load $AP "\"start,event=$m,interval=1\"" > /dev/null
        load -n$N > "$OUT/load-count.txt" 2>&1
        $JCMD $GW JVMTI.agent_load $AP "\"stop,file=$OUT/count.collapsed,collapsed\"" > /dev/null
        n2=$(count "$OUT/load-count.txt")
        awk -v n="$n2" -v m="$m" '{ t += $NF } END { printf "   calls of %s per request: %.3f (%d requests)\n", m, t / n, n }' "$OUT/count.collapsed" | tee -a "$OUT/summary.txt"
        mv "$OUT/count.collapsed" "$OUT/count-${m##*.}.collapsed"
    done
fi
if [[ -n ${PROF:-} ]]; then
    $JCMD $GW JVMTI.agent_load $AP "\"start,event=cpu,interval=200us\"" > /dev/null
    load -n$N > "$OUT/load-prof.txt" 2>&1
    $JCMD $GW JVMTI.agent_load $AP "\"stop,file=$OUT/cpu.collapsed,collapsed\"" > /dev/null
    echo "   profile: $(count "$OUT/load-prof.txt") requests" | tee -a "$OUT/summary.txt"
fi
