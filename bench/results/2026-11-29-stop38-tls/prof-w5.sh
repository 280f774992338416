#!/usr/bin/env bash
# prof-w5.sh JAR LABEL: W5's shape (wrk -t1 -c256 /hello over TLS, HTTP/1.1 keep-alive, instant origin) on ports
# 47081 -> 47080 (admin 47901), the gateway on core 0, load and origin on core 1. Warm WARM s; then a window of D s:
# CPU per request, allocation per request (GC log between two forced GCs), system calls per request (perf);
# then (PROF=1) D s under async-profiler's CPU sampling and D s under its allocation sampling.
# CONFIG: gateway config (default bench/configs/gw-tls-conscrypt.yaml; relative to the repository or absolute), ports
# rewritten. Needs the harness's origin and certificate in /tmp/loomgate-bench, wrk, perf. Kept as run (stop 38).
set -uo pipefail
JAR=$1; LABEL=$2; D=${D:-15}; WARM=${WARM:-60}
ROOT=${ROOT:-$(cd "$(dirname "$0")/../../.." && pwd)}
OUT=/tmp/tlsw5/prof-$LABEL; rm -rf "$OUT"; mkdir -p "$OUT"
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java; JCMD=/usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd
export BENCH_TLS_CERT=/tmp/loomgate-bench/tls/cert.pem BENCH_TLS_KEY=/tmp/loomgate-bench/tls/key.pem
export BENCH_TLS_PEM=/tmp/loomgate-bench/tls/bench.pem
URL=https://127.0.0.1:47081/hello
CFG=${CONFIG:-bench/configs/gw-tls-conscrypt.yaml}; [[ $CFG == /* ]] || CFG=$ROOT/$CFG
sed -e 's/18081/47081/; s/19901/47901/; s/18080/47080/' "$CFG" > "$OUT/gw.yaml"
taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:47080 -latency 100ms > /dev/null 2>&1 & BP=$!
if [[ $JAR == haproxy ]]; then
    sed -e 's/127.0.0.1:18081/127.0.0.1:47081/; s/127.0.0.1:18080/127.0.0.1:47080/' -e "s|pidfile .*|pidfile $OUT/hap.pid|" \
        "/work/shared/bench/peers/haproxy-t1-tls.cfg" > "$OUT/hap.cfg"
    taskset -c 0 haproxy -db -f "$OUT/hap.cfg" > "$OUT/gw.log" 2>&1 & P=$!
else
    taskset -c 0 $JAVA -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -Xlog:gc:file=$OUT/gc.log \
        ${JVM_EXTRA:-} -jar "$JAR" serve --config "$OUT/gw.yaml" > "$OUT/gw.log" 2>&1 & P=$!
fi
trap 'kill $P $BP 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 300); do curl -sk -o /dev/null $URL && break; sleep 0.2; done
for ((l = WARM; l > 0; l -= 10)); do taskset -c 1 wrk -t1 -c256 -d10s $URL > /dev/null 2>&1; done
st() { awk '{ print $14, $15 }' /proc/$P/stat; }
[[ $JAR == haproxy ]] || $JCMD $P GC.run > /dev/null
read u0 s0 < <(st)
perf stat -x, -e context-switches,syscalls:sys_enter_read,syscalls:sys_enter_write,syscalls:sys_enter_writev,syscalls:sys_enter_sendto,syscalls:sys_enter_recvfrom,syscalls:sys_enter_futex,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_epoll_ctl,syscalls:sys_enter_ioctl,syscalls:sys_enter_sched_yield -p $P -o $OUT/perf.csv & PP=$!
taskset -c 1 wrk -t1 -c256 -d${D}s $URL > $OUT/wrk.txt 2>&1
kill -INT $PP; wait $PP 2>/dev/null
read u1 s1 < <(st)
done=$(awk '/requests in/ { print $1 }' $OUT/wrk.txt)
alloc=0
if [[ $JAR != haproxy ]]; then
    $JCMD $P GC.run > /dev/null
    sleep 0.5
    alloc=$(awk '/Pause/ { if (match($0, /[0-9]+M->[0-9]+M/)) { s = substr($0, RSTART, RLENGTH); split(s, a, /M->|M/); b[++n] = a[1]; f[n] = a[2]; full[n] = ($0 ~ /Pause Full/) } }
      END { for (i = n; i > 0 && !full[i]; i--); last = i; for (i = last - 1; i > 0 && !full[i]; i--); first = i;
            t = 0; for (i = first + 1; i <= last; i++) t += b[i] - f[i - 1]; print t }' $OUT/gc.log)
fi
awk -v l=$LABEL -v n=$done -v d=$D -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v a=$alloc -v load="$(cut -d' ' -f1 /proc/loadavg)" \
  'BEGIN { printf "%s: %d req, %.0f req/s, CPU %.2f us/req (user %.2f, kernel %.2f), alloc %.0f B/req, load %s\n", l, n, n / d, (u+s)*10000/n, u*10000/n, s*10000/n, a*1048576/n, load }'
awk -F, -v n=$done '$1+0 > 0 { sub("syscalls:sys_enter_", "", $3); line = line sprintf(" %s %.3f", $3, $1 / n) } END { print "   per request:" line }' $OUT/perf.csv
if [[ ${PROF:-1} == 1 && $JAR != haproxy ]]; then
  AP=${AP:-/tmp/tlsw5/ap/linux-x64/libasyncProfiler.so} # linux-x64/libasyncProfiler.so from async-profiler 4.1's jar (~/.m2)
  $JCMD $P JVMTI.agent_load $AP "\"start,event=cpu,interval=1000000\"" > /dev/null
  taskset -c 1 wrk -t1 -c256 -d${D}s $URL > $OUT/wrk-cpu.txt 2>&1
  $JCMD $P JVMTI.agent_load $AP "\"stop,file=$OUT/cpu.collapsed,collapsed\"" > /dev/null
  $JCMD $P JVMTI.agent_load $AP "\"start,event=alloc,alloc=${ALLOCI:-524287}\"" > /dev/null
  taskset -c 1 wrk -t1 -c256 -d${D}s $URL > $OUT/wrk-alloc.txt 2>&1
  $JCMD $P JVMTI.agent_load $AP "\"stop,file=$OUT/alloc.collapsed,collapsed,total\"" > /dev/null
fi
