#!/usr/bin/env bash
# prof-w9.sh JAR LABEL: W9's shape (h2load -c200 -m10 /api/data, h2 over TLS by ALPN, the Go origin's 100 ms) on
# ports 38081 -> 38080 (admin 39901), the gateway on core 0 with the launcher's flags, load and origin on core 1; or
# HAProxy (JAR=haproxy) for the system-call counts. Warm WARM s; then a window of N requests: CPU per request (user,
# kernel), allocation per request (GC log, between two forced GCs), system calls and context switches per request
# (perf); then (PROF=1) N requests under async-profiler's CPU sampling and N under its allocation sampling.
# CONFIG: the gateway config (default bench/configs/gw-tls-conscrypt.yaml), its ports rewritten.
# Needs /tmp/h2perf/ap/libasyncProfiler.so (async-profiler 4.1, linux-x64, from ~/.m2), the harness's origin binary
# and certificate in /tmp/loomgate-bench, perf, h2load, haproxy. Kept here as run (stop 37), not a maintained script.
set -uo pipefail
JAR=$1; LABEL=$2; N=${N:-100000}; WARM=${WARM:-90}
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
OUT=/tmp/h2perf-s37/prof-$LABEL; rm -rf "$OUT"; mkdir -p "$OUT"
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java; JCMD=/usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd
export BENCH_TLS_CERT=/tmp/loomgate-bench/tls/cert.pem BENCH_TLS_KEY=/tmp/loomgate-bench/tls/key.pem
export BENCH_TLS_PEM=/tmp/loomgate-bench/tls/bench.pem
URL=https://127.0.0.1:38081/api/data
sed -e 's/18081/38081/; s/19901/39901/; s/18080/38080/' "$ROOT/${CONFIG:-bench/configs/gw-tls-conscrypt.yaml}" > "$OUT/gw.yaml"
taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:38080 -latency 100ms > /dev/null 2>&1 & BP=$!
if [[ $JAR == haproxy ]]; then
    sed -e 's/127.0.0.1:18081/127.0.0.1:38081/; s/127.0.0.1:18080/127.0.0.1:38080/' -e "s|pidfile .*|pidfile $OUT/hap.pid|" \
        "${SHARED:-$ROOT/../shared/bench}/peers/haproxy-t1-tls.cfg" > "$OUT/hap.cfg"
    taskset -c 0 haproxy -db -f "$OUT/hap.cfg" > "$OUT/gw.log" 2>&1 & P=$!
else
    taskset -c 0 $JAVA -Xmx256m -Xms16m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -Xlog:gc:file=$OUT/gc.log \
        ${JVM_EXTRA:-} -jar "$JAR" serve --config "$OUT/gw.yaml" > "$OUT/gw.log" 2>&1 & P=$!
fi
trap 'kill $P $BP 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 300); do curl -sk -o /dev/null https://127.0.0.1:38081/hello && break; sleep 0.2; done
for ((l = WARM; l > 0; l -= 10)); do taskset -c 1 h2load -t1 -c200 -m10 -D10 $URL > /dev/null 2>&1; done
st() { awk '{ print $14, $15 }' /proc/$P/stat; }
[[ $JAR == haproxy ]] || $JCMD $P GC.run > /dev/null
read u0 s0 < <(st)
perf stat -x, -e context-switches,syscalls:sys_enter_read,syscalls:sys_enter_write,syscalls:sys_enter_writev,syscalls:sys_enter_sendto,syscalls:sys_enter_recvfrom,syscalls:sys_enter_sendmsg,syscalls:sys_enter_recvmsg,syscalls:sys_enter_futex,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_epoll_ctl,syscalls:sys_enter_ioctl,syscalls:sys_enter_sched_yield -p $P -o $OUT/perf.csv & PP=$!
taskset -c 1 h2load -t1 -c200 -m10 -n$N $URL > $OUT/h2load.txt 2>&1
kill -INT $PP; wait $PP 2>/dev/null
read u1 s1 < <(st)
done=$(awk '/^requests:/ { print $8 }' $OUT/h2load.txt)
alloc=0
if [[ $JAR != haproxy ]]; then
    $JCMD $P GC.run > /dev/null
    sleep 0.5
    # allocation between the two forced GCs: the first's "after", each young GC's "before" minus the last "after", the
    # second's "before"
    alloc=$(awk '/Pause/ { if (match($0, /[0-9]+M->[0-9]+M/)) { s = substr($0, RSTART, RLENGTH); split(s, a, /M->|M/); b[++n] = a[1]; f[n] = a[2]; full[n] = ($0 ~ /Pause Full/) } }
      END { for (i = n; i > 0 && !full[i]; i--); last = i; for (i = last - 1; i > 0 && !full[i]; i--); first = i;
            t = 0; for (i = first + 1; i <= last; i++) t += b[i] - f[i - 1]; print t }' $OUT/gc.log)
fi
awk -v l=$LABEL -v n=$done -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v a=$alloc -v rps="$(awk '/finished in/ {print $4}' $OUT/h2load.txt)" \
  -v load="$(cut -d' ' -f1 /proc/loadavg)" \
  'BEGIN { printf "%s: %d req, %s req/s, CPU %.2f us/req (user %.2f, kernel %.2f), alloc %.0f B/req, load %s\n", l, n, rps, (u+s)*10000/n, u*10000/n, s*10000/n, a*1048576/n, load }'
awk -F, -v n=$done '$1+0 > 0 { sub("syscalls:sys_enter_", "", $3); line = line sprintf(" %s %.3f", $3, $1 / n) } END { print "   per request:" line }' $OUT/perf.csv
if [[ ${PROF:-1} == 1 && $JAR != haproxy ]]; then
  AP=/tmp/h2perf/ap/libasyncProfiler.so
  $JCMD $P JVMTI.agent_load $AP "\"start,event=cpu,interval=1000000\"" > /dev/null
  taskset -c 1 h2load -t1 -c200 -m10 -n$N $URL > $OUT/h2load-cpu.txt 2>&1
  $JCMD $P JVMTI.agent_load $AP "\"stop,file=$OUT/cpu.collapsed,collapsed\"" > /dev/null
  $JCMD $P JVMTI.agent_load $AP "\"start,event=alloc,alloc=${ALLOCI:-524287}\"" > /dev/null
  taskset -c 1 h2load -t1 -c200 -m10 -n$N $URL > $OUT/h2load-alloc.txt 2>&1
  $JCMD $P JVMTI.agent_load $AP "\"stop,file=$OUT/alloc.collapsed,collapsed,total\"" > /dev/null
fi
