#!/usr/bin/env bash
# System calls per request of the pool's lease check (session 54, tlslease): the gateway (JAR) forwards /hello to an
# nginx origin, plain or https (TLS 1.3, one worker, keep-alive without a request limit), on the JDK's sockets or
# epoll's; h2load --h1 sends a fixed count of keep-alive requests (N, CONNS connections) after a warm-up of the same
# count, and perf counts the gateway's system calls by kind over the measured requests only (kernel tracepoints: the
# gateway is not slowed as under strace). Prints per request: reads, ioctls (FIONREAD), all calls, and the gateway's
# CPU (perf's task-clock over the same requests, all its threads; session 55).
#
#   JAR=/tmp/a.jar bench/lease-check/run.sh plain jdk      # origin kind (plain|tls|tls-conscrypt), transport
#   PORT0=29700 N=20000 CONNS=16 ...                      # ports PORT0..PORT0+3 (gateway, admin, origins)
#   RPS=5 CONNS=2 N=200 ...                               # the measured requests at RPS a connection: every
#                                                         # lease after a pause (before session 56 the JDK
#                                                         # sockets looked only after 50 ms of idleness)
#   STRACE=1 ...                                          # strace instead of perf: the lease's 1-byte reads,
#                                                         # FIONREADs and fcntls counted call by call
# Stops everything it starts.
set -euo pipefail
KIND=${1:-plain}
TRANSPORT=${2:-jdk}
JAR=${JAR:?the gateway jar}
N=${N:-20000}
CONNS=${CONNS:-16}
PORT0=${PORT0:-29700}
GW=$PORT0; ADMIN=$((PORT0 + 1)); PLAIN=$((PORT0 + 2)); TLSP=$((PORT0 + 3))
JAVA=${JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
WORK=$(mktemp -d /tmp/lease-check.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=localhost \
    -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null
cat > "$WORK/nginx.conf" <<NGX
worker_processes 1; daemon off; pid $WORK/nginx.pid; error_log $WORK/nginx-error.log;
events { worker_connections 4096; }
http { access_log off; keepalive_requests 100000000; keepalive_timeout 300s;
  server { listen 127.0.0.1:$PLAIN; location / { return 200 "hello"; } }
  server { listen 127.0.0.1:$TLSP ssl; ssl_certificate $WORK/cert.pem; ssl_certificate_key $WORK/key.pem;
           ssl_protocols TLSv1.3; location / { return 200 "hello"; } } }
NGX
nginx -c "$WORK/nginx.conf" -e "$WORK/nginx-error.log" & pids+=($!)
PROVIDER=jdk
case $KIND in
  plain) URI=http://127.0.0.1:$PLAIN ;;
  tls) URI=https://localhost:$TLSP ;;
  tls-conscrypt) URI=https://localhost:$TLSP; PROVIDER=conscrypt ;;
esac
cat > "$WORK/gw.yaml" <<YAML
server: { address: 127.0.0.1, port: $GW, transport: $TRANSPORT }
admin: { port: $ADMIN }
upstream: { ssl: { trust-certificate: $WORK/cert.pem, provider: $PROVIDER } }
routes:
  - id: hello
    uri: $URI
    predicates: [ "Path=/**" ]
YAML
"$JAVA" -Xmx256m -jar "$JAR" serve --config "$WORK/gw.yaml" > "$WORK/gw.log" 2>&1 & GWPID=$!; pids+=($GWPID)
deadline=$((SECONDS + 60))
until curl -s -o /dev/null "http://127.0.0.1:$GW/hello"; do
    [ $SECONDS -lt $deadline ] || { echo "gateway did not answer"; tail "$WORK/gw.log"; exit 1; }
    sleep 0.2
done
h2load --h1 -n "$N" -c "$CONNS" "http://127.0.0.1:$GW/hello" > "$WORK/warm.txt" 2>&1
if [ -n "${STRACE:-}" ]; then # the lease's own calls, one by one: 1-byte reads (the probe), FIONREAD, fcntl
    # one file per thread (no call split by another's), outside $WORK: the gateway watches its config's folder
    ST=$(mktemp -d /tmp/lease-strace.XXXXXX)
    strace -f -ff -qq -e trace=read,ioctl,fcntl -o "$ST/t" -p "$GWPID" & PERF=$!
    sleep 1
    h2load --h1 -n "$N" -c "$CONNS" ${RPS:+--rps=$RPS} "http://127.0.0.1:$GW/hello" > "$WORK/run.txt" 2>&1
    kill -INT $PERF; wait $PERF 2>/dev/null || true
    cat "$ST"/t.* > "$WORK/strace.txt"; rm -rf "$ST"
    [ -z "${KEEP:-}" ] || cp "$WORK/strace.txt" "$KEEP"
    printf '%s %s %s N=%s conns=%s%s load=%s (%s), strace:\n' "$(basename "$JAR")" "$KIND" "$TRANSPORT" "$N" \
        "$CONNS" "${RPS:+ rps=$RPS}" "$(cut -d' ' -f1 /proc/loadavg)" "$(grep -o '[0-9]* succeeded' "$WORK/run.txt")"
    for what in ', 1) *= -1 EAGAIN' 'ioctl([0-9]*, FIONREAD' 'fcntl(' 'read(' ', 8192) *= -1 EAGAIN' \
            ', 16645) *= '; do
        printf '  %-28s %8d  %.3f per request\n' "$what" "$(grep -c -- "$what" "$WORK/strace.txt")" \
            "$(grep -c -- "$what" "$WORK/strace.txt" | awk -v n="$N" '{ print $1 / n }')"
    done
    exit 0
fi
perf stat -e 'task-clock,syscalls:sys_enter_read,syscalls:sys_enter_ioctl,syscalls:sys_enter_write,syscalls:sys_enter_epoll_ctl,raw_syscalls:sys_enter' \
    -p "$GWPID" -x, -o "$WORK/perf.csv" & PERF=$!
sleep 0.5
h2load --h1 -n "$N" -c "$CONNS" ${RPS:+--rps=$RPS} "http://127.0.0.1:$GW/hello" > "$WORK/run.txt" 2>&1
kill -INT $PERF; wait $PERF 2>/dev/null || true
ok=$(grep -o '[0-9]* succeeded' "$WORK/run.txt" | head -1)
printf '%s %s %s N=%s conns=%s%s load=%s (%s)\n' "$(basename "$JAR")" "$KIND" "$TRANSPORT" "$N" "$CONNS" "${RPS:+ rps=$RPS}" \
    "$(cut -d' ' -f1 /proc/loadavg)" "$ok"
awk -F, -v n="$N" '/sys_enter/ { split($3, e, ":"); printf "  %-10s %10d  %.3f per request\n", e[2], $1, $1 / n }
    /task-clock/ { printf "  %-10s %10.1f  %.1f us CPU per request\n", "cpu-ms", $1, $1 * 1000 / n }' "$WORK/perf.csv"
