#!/usr/bin/env bash
# prof.sh JAR LABEL [w5|w2]: W5's shape (wrk -t1 -c256 /hello over TLS, keep-alive, instant origin) or W2's at 256
# connections (the same over plain HTTP/1.1; CONNS for another count), on ports 27081 -> 27080 (admin 27901: below the
# ephemeral range, where a test's client socket can hold a port), the gateway on core 0, wrk and the harness's Go
# origin on core 1, all niced. Warm WARM s; then a window of D s: CPU per request (user, kernel), bytes allocated per
# request (GC log between two forced GCs), system calls per request (perf), and the load core's side (the origin's CPU
# per request, wrk's); then (PROF=1) D s under
# async-profiler's CPU sampling and D s under its allocation sampling. stop 38's prof-w5.sh with W2 and other ports.
# CONFIG: the gateway config (default gw-tls-conscrypt.yaml for w5, gateway-bench.yaml for w2), ports rewritten.
# JAR=haproxy runs HAProxy (1 thread) with the harness's config instead (HAPCFG: another config, e.g.
# bench/configs/haproxy-t1-tls-forwarded.cfg, HAProxy adding the fields the gateway adds).
set -uo pipefail
JAR=$1; LABEL=$2; SHAPE=${3:-w5}; D=${D:-15}; WARM=${WARM:-60}; C=${CONNS:-256}
ROOT=${ROOT:-$(cd "$(dirname "$0")/../../.." && pwd)}
OUT=/tmp/w5prof/$LABEL; rm -rf "$OUT"; mkdir -p "$OUT"
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java; JCMD=/usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd
export BENCH_TLS_CERT=/tmp/loomgate-bench/tls/cert.pem BENCH_TLS_KEY=/tmp/loomgate-bench/tls/key.pem
export BENCH_TLS_PEM=/tmp/loomgate-bench/tls/bench.pem
if [[ $SHAPE == w5 ]]; then
    URL=https://127.0.0.1:27081/hello; DEF=bench/configs/gw-tls-conscrypt.yaml; HAP=haproxy-t1-tls.cfg
else
    URL=http://127.0.0.1:27081/hello; DEF=bench/configs/gateway-bench.yaml; HAP=haproxy-t1.cfg
fi
CFG=${CONFIG:-$DEF}; [[ $CFG == /* ]] || CFG=$ROOT/$CFG
sed -e 's/18081/27081/g; s/19901/27901/g; s/18080/27080/g' "$CFG" > "$OUT/gw.yaml"
nice taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:27080 -latency 100ms > "$OUT/origin.log" 2>&1 & BP=$!
for _ in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:27080/hello && break; sleep 0.2; done
kill -0 $BP 2>/dev/null || { echo "the origin did not start: $(cat "$OUT/origin.log")" >&2; exit 1; }
if [[ $JAR == haproxy ]]; then
    sed -e 's/18081/27081/g; s/18080/27080/g' -e "s|pidfile .*|pidfile $OUT/hap.pid|" \
        "${HAPCFG:-/work/shared/bench/peers/$HAP}" > "$OUT/hap.cfg"
    nice taskset -c 0 haproxy -db -f "$OUT/hap.cfg" > "$OUT/gw.log" 2>&1 & P=$!
else
    nice taskset -c 0 $JAVA -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -Xlog:gc:file=$OUT/gc.log \
        ${JVM_EXTRA:-} -jar "$JAR" serve --config "$OUT/gw.yaml" > "$OUT/gw.log" 2>&1 & P=$!
fi
trap 'kill $P $BP 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 300); do curl -sk -o /dev/null $URL && break; sleep 0.2; done
W() { nice taskset -c 1 wrk -t1 -c$C -d$1s --timeout 10s $URL; }
for ((l = WARM; l > 0; l -= 10)); do W 10 > /dev/null 2>&1; done
st() { awk '{ print $14, $15 }' /proc/$P/stat; }
bt() { awk '{ print $14 + $15 }' /proc/$BP/stat; } # the origin's CPU ticks (core 1, beside wrk)
[[ $JAR == haproxy ]] || $JCMD $P GC.run > /dev/null
read u0 s0 < <(st); b0=$(bt)
perf stat -x, -e context-switches,syscalls:sys_enter_read,syscalls:sys_enter_write,syscalls:sys_enter_writev,syscalls:sys_enter_sendto,syscalls:sys_enter_recvfrom,syscalls:sys_enter_futex,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_epoll_ctl,syscalls:sys_enter_sched_yield -p $P -o $OUT/perf.csv & PP=$!
/usr/bin/time -f "%U %S" -o $OUT/wrk.time nice taskset -c 1 wrk -t1 -c$C -d${D}s --timeout 10s $URL > $OUT/wrk.txt 2>&1
kill -INT $PP; wait $PP 2>/dev/null
read u1 s1 < <(st); b1=$(bt)
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
# The load core's side of each request: the origin's CPU and wrk's (user + system), µs per request.
read wu ws < $OUT/wrk.time
awk -v n=$done -v b=$((b1 - b0)) -v wu=$wu -v ws=$ws 'BEGIN { printf "   load core per request: origin %.2f us, wrk %.2f us (user %.2f, sys %.2f)\n", b * 10000 / n, (wu + ws) * 1e6 / n, wu * 1e6 / n, ws * 1e6 / n }'
if [[ ${PROF:-1} == 1 && $JAR != haproxy ]]; then
  AP=${AP:-/tmp/tlsw5/ap/linux-x64/libasyncProfiler.so}
  $JCMD $P JVMTI.agent_load $AP "\"start,event=cpu,interval=1000000\"" > /dev/null
  W $D > $OUT/wrk-cpu.txt 2>&1
  $JCMD $P JVMTI.agent_load $AP "\"stop,file=$OUT/cpu.collapsed,collapsed\"" > /dev/null
  $JCMD $P JVMTI.agent_load $AP "\"start,event=alloc,alloc=${ALLOCI:-65536}\"" > /dev/null
  W $D > $OUT/wrk-alloc.txt 2>&1
  $JCMD $P JVMTI.agent_load $AP "\"stop,file=$OUT/alloc.collapsed,collapsed,total\"" > /dev/null
  echo "   profiles: $OUT/cpu.collapsed ($(awk '{ s += $NF } END { print s }' $OUT/cpu.collapsed) samples), $OUT/alloc.collapsed"
fi
