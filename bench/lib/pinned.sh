# Shared by the bench scripts that run a proxy pinned beside the harness's origin (bench/tls-steady, bench/tls-w7,
# bench/syscalls): the harness's paths and certificate, the Go origin on core 1 (100 ms /api/data, instant /hello),
# cleanup of everything started, the JVM's C2 compiler time, and for the scripts that start the gateway and HAProxy
# themselves (bench/syscalls, bench/fixedrate): configs copied with a run's ports, the gateway's JVM flags, and a
# wait for a proxy's first answer. Source it after setting ROOT; it sets SHARED, JAVA
# and JAR (each overridable from the environment), starts the origin (on ORIGIN_PORT, default 18080, the harness's) and records its pid in `pids`; a script adds
# the pids of what it starts.
SHARED=${SHARED:-$(cd "$ROOT/../shared/bench" && pwd)}
JAR=${JAR:-$ROOT/loomgate-cli/target/loomgate-gateway.jar}
JAVA=${JAVA:-$(ls -d /usr/lib/jvm/*25*/bin/java | head -1)}
export BENCH_TLS_CERT=/tmp/loomgate-bench/tls/cert.pem BENCH_TLS_KEY=/tmp/loomgate-bench/tls/key.pem
export BENCH_TLS_PEM=/tmp/loomgate-bench/tls/bench.pem
ulimit -n "$(ulimit -Hn)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:${ORIGIN_PORT:-18080} -latency 100ms > /dev/null 2>&1 &
pids+=($!)

c2_ticks() { # pid: CPU ticks of the JVM's C2 compiler thread(s); 0 for anything else
    local t sum=0
    for t in /proc/"$1"/task/*; do
        [[ $(cat "$t/comm" 2>/dev/null) == C2* ]] && sum=$((sum + $(awk '{ print $14 + $15 }' "$t/stat")))
    done
    echo "$sum"
}

ported() { # config file: a copy in $TMP-conf with the run's GW_PORT, ORIGIN_PORT, ADMIN_PORT (the file itself when
    # they are the harness's 18081, 18080, 19901); prints its path. The caller sets TMP.
    if [[ ${GW_PORT:-18081} == 18081 && ${ORIGIN_PORT:-18080} == 18080 && ${ADMIN_PORT:-19901} == 19901 ]]; then
        echo "$1"; return
    fi
    mkdir -p "$TMP-conf"
    sed -e "s/18081/$GW_PORT/g; s/18080/$ORIGIN_PORT/g; s/19901/$ADMIN_PORT/g" \
        -e "s|pidfile /tmp/loomgate-bench/|pidfile $TMP-conf/|" "$1" > "$TMP-conf/$(basename "$1")"
    echo "$TMP-conf/$(basename "$1")"
}

# a JVM as the harness's PROXY_CMD runs the gateway (and the floor programs run beside it): a 256 MiB heap, Serial
# GC, compact object headers
BENCH_JVM=("$JAVA" -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders)

await_answer() { # name url log: polls url (HTTP/1.1 or TLS unverified, then h2c prior knowledge) for up to 60 s;
    # exits naming the proxy's log if nothing answers
    local _
    for _ in $(seq 300); do
        curl -sk -o /dev/null "$2" 2>/dev/null && return 0
        curl -s --http2-prior-knowledge -o /dev/null "$2" 2>/dev/null && return 0
        sleep 0.2
    done
    echo "$1 did not answer; see $3" >&2
    exit 1
}
