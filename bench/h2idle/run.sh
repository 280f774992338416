#!/usr/bin/env bash
# Memory per idle HTTP/2 (h2c, prior knowledge) connection: starts the shared bench backend and one proxy on free
# ports, warms the proxy with one h2idle round, then runs h2idle with the proxy's pid (RSS before vs while held; for
# Loomgate also the live heap by class, from jcmd GC.class_histogram: before vs held, and held vs after the
# connections closed (HEAP_RELEASED), both without the serial collector's filler arrays, dead space not objects).
#
#   bench/h2idle/run.sh [loomgate|haproxy|nginx] [h2idle flags, e.g. -n 5000 -mode open -path '/api/data?delay=600000']
#   TLS=1 bench/h2idle/run.sh [loomgate|haproxy] -n 5000    # h2 over TLS by ALPN (a fresh ECDSA P-256 certificate)
#   TLS=1 PROVIDER=conscrypt bench/h2idle/run.sh loomgate -n 5000   # server.ssl.provider: conscrypt (BoringSSL)
#
# Conscrypt keeps its TLS state in native memory, which the heap histogram does not see. To count it, pre-touch the
# whole heap so that its growth does not move RSS, and read the RSS figure as what lies outside the heap:
#   TLS=1 PROVIDER=conscrypt JVM_OPTS='-Xms256m -Xmx256m -XX:+AlwaysPreTouch -XX:+UseSerialGC
#     -XX:+UseCompactObjectHeaders' bench/h2idle/run.sh loomgate -n 5000
#
# Loomgate runs from $JAR (default loomgate-cli/target/loomgate.jar: ./loomgate build first) with JVM_OPTS (default:
# the launcher's heap flags, -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders, as the harness runs it). Needs Go (/usr/local/go/bin/go), and haproxy or nginx for those peers. Everything it starts
# is stopped at the end; logs are kept under $WORK (printed).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PROXY=${1:-loomgate}
shift || true
GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
# The shared bench kit sits beside the checkout (/work/main -> /work/shared), or two up from a worktree.
SHARED=${SHARED:-$(cd "$ROOT/../shared/bench" 2>/dev/null || cd "$ROOT/../../shared/bench" && pwd)}
PEERS=$SHARED/peers
BACKEND_SRC=$SHARED/backend
WORK=$(mktemp -d /tmp/h2idle.XXXXXX)
ulimit -n "$(ulimit -Hn)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
await_port() { # port: waits up to 60 s for a listener
    local deadline=$((SECONDS + 60))
    until (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; do
        ((SECONDS < deadline)) || { echo "nothing listens on $1 after 60 s (logs in $WORK)" >&2; exit 1; }
        sleep 0.2
    done
}

(cd "$HERE" && "$GO" build -o "$WORK/h2idle" .)
tls=()
if [[ -n ${TLS:-} ]]; then # the same kind of certificate as run.sh's TLS workloads
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=127.0.0.1 \
        -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2> /dev/null
    cat "$WORK/cert.pem" "$WORK/key.pem" > "$WORK/bench.pem"
    tls=(-tls)
fi
(cd "$BACKEND_SRC" && "$GO" build -o "$WORK/backend" .)
ORIGIN=$(free_port)
PORT=$(free_port)
"$WORK/backend" -addr "127.0.0.1:$ORIGIN" > "$WORK/backend.log" 2>&1 &
pids+=($!)
await_port "$ORIGIN"

jcmd=()
case $PROXY in
    loomgate)
        cat > "$WORK/gw.yaml" <<YAML
server:
  address: 127.0.0.1
  port: $PORT
  max-connections: 20000
  http2:
    enabled: true
${TLS:+  ssl:
    certificate: $WORK/cert.pem
    certificate-private-key: $WORK/key.pem
${PROVIDER:+    provider: $PROVIDER
}}admin:
  port: 0
access-log:
  enabled: false
routes:
  - id: origin
    uri: http://127.0.0.1:$ORIGIN
    predicates: [ "Path=/**" ]
YAML
        # shellcheck disable=SC2086
        "$JAVA_HOME/bin/java" ${JVM_OPTS--Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders} \
            -jar "${JAR:-$ROOT/loomgate-cli/target/loomgate.jar}" serve \
            --config "$WORK/gw.yaml" > "$WORK/proxy.log" 2>&1 &
        jcmd=(-jcmd "$JAVA_HOME/bin/jcmd") ;;
    haproxy)
        hacfg=haproxy-t1-h2c.cfg
        [[ -z ${TLS:-} ]] || hacfg=haproxy-t1-tls.cfg
        sed -e "s/127.0.0.1:18081/127.0.0.1:$PORT/; s/127.0.0.1:18080/127.0.0.1:$ORIGIN/" \
            -e "s#pidfile .*#pidfile $WORK/haproxy.pid#" "$PEERS/$hacfg" > "$WORK/haproxy.cfg"
        BENCH_TLS_PEM=$WORK/bench.pem haproxy -db -f "$WORK/haproxy.cfg" > "$WORK/proxy.log" 2>&1 & ;;
    nginx)
        [[ -z ${TLS:-} ]] || { echo "TLS=1 is for loomgate and haproxy" >&2; exit 2; }
        mkdir -p "$WORK/nginx/logs" "$WORK/nginx/tmp"
        sed -e "s/127.0.0.1:18081/127.0.0.1:$PORT/; s/127.0.0.1:18080/127.0.0.1:$ORIGIN/" \
            "$PEERS/nginx-w1-h2c.conf" > "$WORK/nginx.conf"
        nginx -p "$WORK/nginx/" -c "$WORK/nginx.conf" -g 'daemon off;' > "$WORK/proxy.log" 2>&1 & ;;
    *) echo "unknown proxy $PROXY (loomgate, haproxy or nginx)" >&2; exit 2 ;;
esac
pids+=($!)
PROXY_PID=$!
await_port "$PORT"
if [[ $PROXY == nginx ]]; then # the worker holds the connections
    PROXY_PID=$(pgrep -P "$PROXY_PID" | head -1)
fi
echo "h2idle: $PROXY pid $PROXY_PID on 127.0.0.1:$PORT, origin 127.0.0.1:$ORIGIN, logs in $WORK"
# Warm-up: a gateway that has served a while has its connection code compiled, and a parked virtual thread's stack
# chunk is smaller with compiled frames than with interpreted ones, so the figure moves until the JIT has settled.
for round in 1 2 3 4 5; do
    "$WORK/h2idle" -addr "127.0.0.1:$PORT" "${tls[@]}" -n 2000 -hold 0s >> "$WORK/warmup.txt"
done
sleep 2
"$WORK/h2idle" -addr "127.0.0.1:$PORT" "${tls[@]}" -pid "$PROXY_PID" "${jcmd[@]}" "$@"
