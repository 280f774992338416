#!/usr/bin/env bash
# New connections while the proxy is saturated: wrk keeps 256 keep-alive connections busy on /hello (one core for
# the proxy, core 1 for wrk, the origin and the probes) while a probe opens one new connection every 100 ms, to the
# proxy's port and, for Loomgate, to its admin port (/health/ready, what a Kubernetes probe asks). Reported per proxy:
# the new connections' time from connect to the end of the answer (p50, p90, p99, max) and wrk's requests/s.
#
#   bench/newconn/run.sh [loomgate haproxy]     # JAR= the gateway jar (default: the build's); SECONDS_LOAD= (30)
#                                               # JVM_EXTRA= more JVM flags for Loomgate (e.g. -Djdk.pollerMode=1);
#                                               # THREADS= its thread model (virtual)
#                                               # ORIGIN_PORT= PROXY_PORT= ADMIN_PORT= (18080, 18081, 19901: the
#                                               # harness's; set others when someone else runs the harness)
#
# Same method as ../shared/bench/run.sh (one core each, ratios within one run), not part of it. Needs nginx (the
# origin), haproxy, wrk, python3; a JDK 25 for Loomgate. Stops everything it starts.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PROXIES=${*:-loomgate haproxy}
JAR=${JAR:-$ROOT/loomgate-cli/target/loomgate-gateway.jar}
JAVA=${JAVA:-$(ls -d /usr/lib/jvm/*25*/bin/java | head -1)}
JVM_OPTS=${JVM_OPTS:--Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders}
JVM_EXTRA=${JVM_EXTRA:-}
LOAD=${SECONDS_LOAD:-30}
ORIGIN_PORT=${ORIGIN_PORT:-18080}
PROXY_PORT=${PROXY_PORT:-18081}
ADMIN_PORT=${ADMIN_PORT:-19901}
# The shared bench kit sits beside the checkout (/work/main -> /work/shared), or two up from a worktree.
SHARED=${SHARED:-$(cd "$ROOT/../shared/bench" 2>/dev/null || cd "$ROOT/../../shared/bench" && pwd)}
WORK=$(mktemp -d /tmp/newconn.XXXXXX)
ulimit -n "$(ulimit -Hn)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

await() { # url: polls until it answers 200, 60 s at most
    local deadline=$((SECONDS + 60))
    until curl -s -o /dev/null -w '%{http_code}' "$1" | grep -q 200; do
        [ $SECONDS -lt $deadline ] || { echo "no answer from $1" >&2; exit 1; }
        sleep 0.2
    done
}

# The origin: nginx answering /hello itself, on core 1.
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
    server { listen 127.0.0.1:$ORIGIN_PORT backlog=4096; location / { return 200 "Hello World\n"; } }
}
CONF
taskset -c 1 nginx -p "$WORK/origin/" -c "$WORK/origin/nginx.conf" -g 'daemon off;' &
pids+=($!)
await http://127.0.0.1:$ORIGIN_PORT/hello

start_proxy() { # name: starts it on core 0 at 127.0.0.1:$PROXY_PORT, prints its pid
    local name=$1 dir=$WORK/$1
    mkdir -p "$dir"
    case $name in
    loomgate)
        cat > "$dir/gw.yaml" <<CONF
server: { address: 127.0.0.1, port: $PROXY_PORT, max-connections: 10000, threads: ${THREADS:-virtual} }
admin: { port: $ADMIN_PORT }
access-log: { enabled: false }
routes:
  - id: origin
    uri: http://127.0.0.1:$ORIGIN_PORT
    predicates: [ "Path=/**" ]
CONF
        # shellcheck disable=SC2086
        taskset -c 0 "$JAVA" $JVM_OPTS $JVM_EXTRA -jar "$JAR" serve --config "$dir/gw.yaml" > "$dir/out.log" 2>&1 & ;;
    haproxy) # the harness's own peer config (127.0.0.1:18081 -> 18080), its pidfile and ports moved into this run
        sed -e "s#pidfile .*#pidfile $dir/haproxy.pid#" -e "s#127.0.0.1:18081#127.0.0.1:$PROXY_PORT#" \
            -e "s#127.0.0.1:18080#127.0.0.1:$ORIGIN_PORT#" "$SHARED/peers/haproxy-t1.cfg" > "$dir/haproxy.cfg"
        taskset -c 0 haproxy -db -f "$dir/haproxy.cfg" > "$dir/out.log" 2>&1 & ;;
    *) echo "unknown proxy $name" >&2; exit 2 ;;
    esac
    echo $!
}

for name in $PROXIES; do
    pid=$(start_proxy "$name")
    pids+=("$pid")
    await http://127.0.0.1:$PROXY_PORT/hello
    taskset -c 1 wrk -t1 -c256 -d20s http://127.0.0.1:$PROXY_PORT/hello > /dev/null   # warm-up (the JIT)
    taskset -c 1 wrk -t1 -c256 -d"$((LOAD + 4))s" http://127.0.0.1:$PROXY_PORT/hello > "$WORK/$name/wrk.txt" &
    wrk_pid=$!
    load_before=$(cut -d' ' -f1-3 /proc/loadavg)
    sleep 2 # wrk's connections open
    taskset -c 1 python3 "$HERE/probe.py" "$PROXY_PORT" /hello "$LOAD" > "$WORK/$name/probe.txt" &
    probe_pid=$!
    admin=""
    if [ "$name" = loomgate ]; then
        taskset -c 1 python3 "$HERE/probe.py" "$ADMIN_PORT" /health/ready "$LOAD" > "$WORK/$name/admin.txt" &
        admin=$!
    fi
    wait "$probe_pid" ${admin:+"$admin"} "$wrk_pid"
    load_after=$(cut -d' ' -f1-3 /proc/loadavg)
    rps=$(awk '/Requests\/sec/ {print $2}' "$WORK/$name/wrk.txt")
    printf '%-9s wrk %8s req/s | new connections to the proxy: %s\n' "$name" "$rps" "$(cat "$WORK/$name/probe.txt")"
    printf '%-9s %20s | load average before: %s, after: %s\n' "$name" "" "$load_before" "$load_after"
    [ -z "$admin" ] || printf '%-9s %20s | new connections to /health/ready: %s\n' "$name" "" "$(cat "$WORK/$name/admin.txt")"
    kill "$pid"
    deadline=$((SECONDS + 30))
    while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
done
echo "logs in $WORK"
