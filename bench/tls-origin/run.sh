#!/usr/bin/env bash
# Issue 11's "https:// origin at 256 connections": each proxy (plain HTTP on 127.0.0.1:18081, pinned to core 0)
# forwards /hello to an https origin (nginx, one worker, TLS 1.3 with the harness's ECDSA P-256 certificate, on
# core 1), verifying its certificate; wrk (core 1) runs 256 keep-alive connections for 10 s after a warm-up (WARMUP).
# Reported per proxy: requests/s, p99, and the proxy's CPU µs per request (utime+stime of its process from /proc).
#
#   bench/tls-origin/run.sh [loomgate loomgate-conscrypt haproxy nginx]    # JAR= the gateway jar (default: the
#                                                                           # build's); WARMUP= (10s)
# loomgate-conscrypt is Loomgate with upstream.ssl.provider: conscrypt.
#
# Same method as ../shared/bench/run.sh (its certificate, one core each, ratios within one run), not part of it.
# Needs nginx, haproxy, wrk, openssl; a JDK 25 for Loomgate. Stops everything it starts.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PROXIES=${*:-loomgate haproxy nginx}
JAR=${JAR:-$ROOT/loomgate-cli/target/loomgate-gateway.jar}
JAVA=${JAVA:-$(ls -d /usr/lib/jvm/*25*/bin/java | head -1)}
JVM_OPTS=${JVM_OPTS:--Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders}
CONNS=${CONNS:-256}
# 10 s, as the harness warms up; 60s lets the JIT finish compiling the JDK's TLS client (docs/performance.md).
WARMUP=${WARMUP:-10s}
WORK=$(mktemp -d /tmp/tls-origin.XXXXXX)
TLS=$WORK/tls
ulimit -n "$(ulimit -Hn)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

mkdir -p "$TLS"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=127.0.0.1 \
    -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" -keyout "$TLS/key.pem" -out "$TLS/cert.pem" 2>/dev/null

await() { # url [curl flags]: polls until it answers 200, 60 s at most
    local deadline=$((SECONDS + 60))
    until curl -s -o /dev/null -w '%{http_code}' "$@" | grep -q 200; do
        [ $SECONDS -lt $deadline ] || { echo "no answer from $1" >&2; exit 1; }
        sleep 0.2
    done
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# The origin: nginx with TLS, answering /hello itself.
mkdir -p "$WORK/origin/logs" "$WORK/origin/tmp"
cat > "$WORK/origin/nginx.conf" <<CONF
worker_processes 1;
pid logs/nginx.pid;
error_log logs/error.log warn;
events { worker_connections 20000; }
http {
    access_log off;
    client_body_temp_path tmp/cb; proxy_temp_path tmp/p; fastcgi_temp_path tmp/f; uwsgi_temp_path tmp/u;
    scgi_temp_path tmp/s;
    keepalive_timeout 75s;
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:18443 ssl backlog=4096;
        ssl_certificate $TLS/cert.pem;
        ssl_certificate_key $TLS/key.pem;
        ssl_protocols TLSv1.3;
        location / { return 200 "Hello World\n"; }
    }
}
CONF
taskset -c 1 nginx -p "$WORK/origin/" -c "$WORK/origin/nginx.conf" -g 'daemon off;' &
pids+=($!)
await https://127.0.0.1:18443/hello -k

start_proxy() { # name: starts it on core 0 at 127.0.0.1:18081, prints its pid
    local name=$1 dir=$WORK/$1
    mkdir -p "$dir/logs" "$dir/tmp"
    case $name in
    loomgate|loomgate-conscrypt)
        local provider=jdk
        [ "$name" = loomgate-conscrypt ] && provider=conscrypt
        cat > "$dir/gw.yaml" <<CONF
server: { address: 127.0.0.1, port: 18081, max-connections: 10000 }
admin: { port: 19901 }
access-log: { enabled: false }
upstream:
  ssl: { trust-certificate: $TLS/cert.pem, provider: $provider }
routes:
  - id: origin
    uri: https://127.0.0.1:18443
    predicates: [ "Path=/**" ]
CONF
        # shellcheck disable=SC2086
        taskset -c 0 "$JAVA" $JVM_OPTS -jar "$JAR" serve --config "$dir/gw.yaml" > "$dir/logs/out.log" 2>&1 & ;;
    haproxy)
        cat > "$dir/haproxy.cfg" <<CONF
global
    nbthread 1
defaults
    mode http
    option http-keep-alive
    timeout connect 5s
    timeout client 60s
    timeout server 60s
    timeout http-keep-alive 60s
frontend fe
    bind 127.0.0.1:18081
    default_backend be
backend be
    http-reuse safe
    server origin 127.0.0.1:18443 ssl verify required ca-file $TLS/cert.pem
CONF
        taskset -c 0 haproxy -db -f "$dir/haproxy.cfg" > "$dir/logs/out.log" 2>&1 & ;;
    nginx)
        cat > "$dir/nginx.conf" <<CONF
worker_processes 1;
pid logs/nginx.pid;
error_log logs/error.log warn;
events { worker_connections 20000; }
http {
    access_log off;
    client_body_temp_path tmp/cb; proxy_temp_path tmp/p; fastcgi_temp_path tmp/f; uwsgi_temp_path tmp/u;
    scgi_temp_path tmp/s;
    keepalive_timeout 75s;
    keepalive_requests 1000000;
    upstream origin { server 127.0.0.1:18443; keepalive 64; keepalive_requests 1000000; }
    server {
        listen 127.0.0.1:18081 backlog=4096;
        location / {
            proxy_pass https://origin;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_ssl_verify on;
            proxy_ssl_trusted_certificate $TLS/cert.pem;
            proxy_ssl_name localhost;   # nginx matches names, not IP SANs
            proxy_ssl_session_reuse on;
            proxy_ssl_protocols TLSv1.2 TLSv1.3;   # 1.22's default lacks TLS 1.3, the origin's only one
        }
    }
}
CONF
        taskset -c 0 nginx -p "$dir/" -c "$dir/nginx.conf" -g 'daemon off;' > "$dir/logs/out.log" 2>&1 & ;;
    *) echo "unknown proxy $name" >&2; exit 2 ;;
    esac
    echo $!
}

printf '%-10s %10s %9s %12s\n' proxy req/s p99_ms cpu_us/req
for name in $PROXIES; do
    pid=$(start_proxy "$name")
    pids+=("$pid")
    await http://127.0.0.1:18081/hello
    taskset -c 1 wrk -t1 -c"$CONNS" -d"$WARMUP" http://127.0.0.1:18081/hello > /dev/null   # warm-up
    # nginx's master forks the worker that does the work: measure the whole tree.
    tree="$pid $(pgrep -P "$pid" | tr '\n' ' ' || true)"
    before=0; for p in $tree; do before=$((before + $(cpu_ticks "$p"))); done
    out=$(taskset -c 1 wrk -t1 -c"$CONNS" -d10s --latency http://127.0.0.1:18081/hello)
    after=0; for p in $tree; do after=$((after + $(cpu_ticks "$p"))); done
    requests=$(echo "$out" | awk '/requests in/ {print $1}')
    rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
    errors=$(echo "$out" | grep -E 'Non-2xx|Socket errors' | tr '\n' ' ' || true)
    hz=$(getconf CLK_TCK)
    cpu=$(awk -v t=$((after - before)) -v hz="$hz" -v n="$requests" 'BEGIN {printf "%.1f", t / hz * 1e6 / n}')
    printf '%-10s %10s %9s %12s %s\n' "$name" "$rps" "$p99" "$cpu" "$errors"
    kill "$pid"
    # Not this shell's child (started in a command substitution): poll until it is gone and the port is free.
    deadline=$((SECONDS + 30))
    while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
done
echo "logs in $WORK"
