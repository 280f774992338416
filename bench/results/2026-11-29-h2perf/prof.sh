#!/usr/bin/env bash
# prof.sh JAR LABEL: W8's shape (h2load -c100 -m10 /hello over h2c) on ports 38081 -> 38080, gateway on core 0,
# load+origin on core 1. Warm WARM s; then a window of N requests: CPU per request (user/kernel), allocation per
# request (GC log, between two forced GCs), syscalls and context switches per request (perf); then (PROF=1) N requests under
# async-profiler's CPU sampling (CPU=0 skips it) and N under its allocation sampling (interval ALLOCI bytes).
# Needs: /tmp/h2perf/gw.yaml = bench/configs/gw-h2c.yaml with port 38081, admin 39901 and the route to
# http://127.0.0.1:38080 (so it runs beside bench/syscalls' 18081); /tmp/h2perf/ap/libasyncProfiler.so, extracted from
# tools.profiler:async-profiler:4.1 (linux-x64/); the harness's Go origin in /tmp/loomgate-bench/bin; perf, h2load.
# Kept here as run (2026-11-29, h2perf), not a maintained bench script.
set -uo pipefail
JAR=$1; LABEL=$2; N=${N:-300000}; WARM=${WARM:-60}
OUT=/tmp/h2perf/prof-$LABEL; rm -rf "$OUT"; mkdir -p "$OUT"
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java; JCMD=/usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd
taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:38080 -latency 100ms > /dev/null 2>&1 & BP=$!
taskset -c 0 $JAVA -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -Xlog:gc:file=$OUT/gc.log \
    ${JVM_EXTRA:-} -jar "$JAR" serve --config /tmp/h2perf/gw.yaml > $OUT/gw.log 2>&1 & P=$!
trap 'kill $P $BP 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 300); do curl -s --http2-prior-knowledge -o /dev/null http://127.0.0.1:38081/hello && break; sleep 0.2; done
for ((l = WARM; l > 0; l -= 10)); do taskset -c 1 h2load -t1 -c100 -m10 -D10 http://127.0.0.1:38081/hello > /dev/null 2>&1; done
st() { awk '{ print $14, $15 }' /proc/$P/stat; }
$JCMD $P GC.run > /dev/null
read u0 s0 < <(st)
perf stat -x, -e context-switches,syscalls:sys_enter_read,syscalls:sys_enter_write,syscalls:sys_enter_writev,syscalls:sys_enter_futex,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_epoll_ctl,syscalls:sys_enter_sched_yield -p $P -o $OUT/perf.csv & PP=$!
taskset -c 1 h2load -t1 -c100 -m10 -n$N http://127.0.0.1:38081/hello > $OUT/h2load.txt 2>&1
kill -INT $PP; wait $PP 2>/dev/null
read u1 s1 < <(st)
$JCMD $P GC.run > /dev/null
sleep 0.5
done=$(awk '/^requests:/ { print $8 }' $OUT/h2load.txt)
# allocation between the two forced GCs: the first's "after", each young GC's "before" minus the last "after", the
# second's "before"
alloc=$(awk '/Pause/ { if (match($0, /[0-9]+M->[0-9]+M/)) { s = substr($0, RSTART, RLENGTH); split(s, a, /M->|M/); b[++n] = a[1]; f[n] = a[2]; full[n] = ($0 ~ /Pause Full/) } }
  END { for (i = n; i > 0 && !full[i]; i--); last = i; for (i = last - 1; i > 0 && !full[i]; i--); first = i;
        t = 0; for (i = first + 1; i <= last; i++) t += b[i] - f[i - 1]; print t }' $OUT/gc.log)
awk -v l=$LABEL -v n=$done -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v a=$alloc -v rps="$(awk '/finished in/ {print $4}' $OUT/h2load.txt)" \
  'BEGIN { printf "%s: %d req, %s, CPU %.2f us/req (user %.2f, kernel %.2f), alloc %.0f B/req\n", l, n, rps, (u+s)*10000/n, u*10000/n, s*10000/n, a*1048576/n }'
awk -F, -v n=$done '$1+0 > 0 { sub("syscalls:sys_enter_", "", $3); line = line sprintf(" %s %.3f", $3, $1 / n) } END { print "   per request:" line }' $OUT/perf.csv
if [[ ${PROF:-1} == 1 ]]; then
  AP=/tmp/h2perf/ap/libasyncProfiler.so
  if [[ ${CPU:-1} == 1 ]]; then
  $JCMD $P JVMTI.agent_load $AP "\"start,event=cpu,interval=1000000\"" > /dev/null
  taskset -c 1 h2load -t1 -c100 -m10 -n$N http://127.0.0.1:38081/hello > $OUT/h2load-cpu.txt 2>&1
  $JCMD $P JVMTI.agent_load $AP "\"stop,file=$OUT/cpu.collapsed,collapsed\"" > /dev/null
  fi
  $JCMD $P JVMTI.agent_load $AP "\"start,event=alloc,alloc=${ALLOCI:-524287}\"" > /dev/null
  taskset -c 1 h2load -t1 -c100 -m10 -n$N http://127.0.0.1:38081/hello > $OUT/h2load-alloc.txt 2>&1
  $JCMD $P JVMTI.agent_load $AP "\"stop,file=$OUT/alloc.collapsed,collapsed,total\"" > /dev/null
fi
