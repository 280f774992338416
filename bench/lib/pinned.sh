# Shared by the bench scripts that run a proxy pinned beside the harness's origin (bench/tls-steady, bench/tls-w7,
# bench/syscalls): the harness's paths and certificate, the Go origin on core 1 (100 ms /api/data, instant /hello),
# cleanup of everything started, and the JVM's C2 compiler time. Source it after setting ROOT; it sets SHARED, JAVA
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
