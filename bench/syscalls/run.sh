#!/usr/bin/env bash
# Where a proxy's CPU per request goes, beside HAProxy, once warm: requests/s, CPU µs per request split into user and
# kernel time (/proc/PID/stat), and system calls per request by kind (perf's syscall tracepoints, counted in the
# kernel, so the proxy is not slowed as under strace). Same pinning as ../shared/bench/run.sh: the proxy on core 0,
# the load and the harness's Go origin on core 1.
#
#   bench/syscalls/run.sh w2            # wrk /hello, 50 keep-alive connections, instant origin (W2's shape)
#   CONNS=256 bench/syscalls/run.sh w2
#   bench/syscalls/run.sh w5            # wrk /hello over TLS, 256 keep-alive connections (W5's shape)
#   bench/syscalls/run.sh w6            # the same with Connection: close, 64 connections: a full handshake each
#   bench/syscalls/run.sh w9-tls        # h2load -c200 -m10 /api/data, h2 by ALPN, 100 ms origin (W9's shape)
#   bench/syscalls/run.sh w9-h2c        # the same over h2c (prior knowledge): W9 without TLS
#   bench/syscalls/run.sh w8            # h2load -c100 -m10 /hello over h2c (W8's shape)
#   ROUNDS=3 PROXIES="loomgate haproxy" JAR=/tmp/other.jar bench/syscalls/run.sh w2
#   CONFIG=bench/configs/gateway-bench-traced.yaml TRACING_RATIO=0.01 bench/syscalls/run.sh w2   # another config
#   PROXIES="floor haproxy loomgate" bench/syscalls/run.sh w2   # bench/floor: the JDK's blocking I/O, nothing else
#   PROXIES="floor-h2 haproxy loomgate" bench/syscalls/run.sh w9-tls   # W9's floor: a thread per stream, no HTTP work
#   PROXIES="floor-selector floor-vselector floor" bench/syscalls/run.sh w2   # a Selector of our own reading for them
#   PROXIES="naive haproxy" bench/syscalls/run.sh w2             # the harness's naive pipe (two threads a connection)
#   PROXIES="floor floor-epoll haproxy" bench/syscalls/run.sh w2   # bench/floor-epoll: the same relay on the epoll module
#   PROXIES="floor-h2 floor-epoll haproxy" bench/syscalls/run.sh w8   # W8's (or w9-h2c's) floor, JDK's and epoll's
#   PROXIES="floor-epoll loomgate-epoll" EPOLL_SPINS=4 ...   # the gateway on epoll against its transport's floor
#       (EPOLL_JVM_ARGS reaches floor-epoll too: the poller's -Dloomgate.epoll.* flags for both)
#   PROXIES="floor-conscrypt haproxy loomgate-conscrypt" bench/syscalls/run.sh w6   # the same with Conscrypt's engine
#   PROXIES="loomgate loomgate-epoll" ROUNDS=3 bench/syscalls/run.sh w2   # server.transport jdk against epoll
#       (JVM_ARGS: more flags for the proxy loomgate, EPOLL_JVM_ARGS for the loomgate-epoll ones)
#   PROXIES="loomgate-epoll loomgate-epoll-block haproxy" ROUNDS=3 bench/syscalls/run.sh w2   # epoll's poller handing
#       over to its platform thread between events, against blocking on its carrier (EPOLL_BLOCK_MILLIS, default 1)
#       and blocking only while its core is not contended (loomgate-epoll-auto)
#   GW_PORT=46081 ORIGIN_PORT=46080 ADMIN_PORT=46901 bench/syscalls/run.sh w5   # beside a harness that holds 18080/18081
#   HOG=1 CONNS=4 PROXIES="loomgate-epoll loomgate-epoll-block" bench/syscalls/run.sh w2   # a shared core: HOG busy
#       loops (shell, nice HOG_NICE, default 0) pinned to the proxy's core 0 from its start to its end; the carriers' schedstat printed
#   PROXY_NICE=-19 PROXIES="loomgate-epoll loomgate-epoll-block loomgate-epoll-auto haproxy" bench/syscalls/run.sh w2
#       # the proxy niced -19 (root): a stand-in for a core of its own where the machine is shared (LOAD_NICE: the
#       # load tool's nice on core 1)
#
# Each proxy starts fresh and is warmed before the measured window (WARM, default 30 s for w2 and 120 s for the
# w9 shapes, long enough for the JIT to have compiled the TLS path; the script prints C2's CPU in the window so
# that can be checked) and the machine's load average (1 minute) at the window's end. Needs perf (Debian's
# linux-perf), wrk, h2load, haproxy, and one earlier ../shared/bench/run.sh (its origin binary and, for w9-tls, its
# certificate are reused from /tmp/loomgate-bench).
#
# Ports: the harness's (proxy 18081, origin 18080, admin 19901) unless GW_PORT, ORIGIN_PORT, ADMIN_PORT say otherwise;
# then every config (the gateway's, HAProxy's) runs as a copy with those ports, and the logs and counts go to
# /tmp/syscalls-GW_PORT.* instead of /tmp/syscalls.*, so two runs on different ports do not share a file.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
cd "$ROOT"
SHAPE=${1:?usage: bench/syscalls/run.sh w2|w5|w6|w8|w9-tls|w9-h2c}
GW_PORT=${GW_PORT:-18081} ORIGIN_PORT=${ORIGIN_PORT:-18080} ADMIN_PORT=${ADMIN_PORT:-19901}
export ORIGIN_PORT # bench/lib/pinned.sh starts the origin there
TMP=/tmp/syscalls; [[ $GW_PORT == 18081 ]] || TMP=/tmp/syscalls-$GW_PORT
case $SHAPE in
    w2) URL=http://127.0.0.1:$GW_PORT GW=bench/configs/gateway-bench.yaml HAP=haproxy-t1.cfg WARM=${WARM:-30} ;;
    w5|w6) URL=https://127.0.0.1:$GW_PORT GW=bench/configs/gw-tls.yaml HAP=haproxy-t1-tls.cfg WARM=${WARM:-60} ;;
    w9-tls) URL=https://127.0.0.1:$GW_PORT GW=bench/configs/gw-tls.yaml HAP=haproxy-t1-tls.cfg WARM=${WARM:-120} ;;
    w9-h2c) URL=http://127.0.0.1:$GW_PORT GW=bench/configs/gw-h2c.yaml HAP=haproxy-t1-h2c.cfg WARM=${WARM:-120} ;;
    w8) URL=http://127.0.0.1:$GW_PORT GW=bench/configs/gw-h2c.yaml HAP=haproxy-t1-h2c.cfg WARM=${WARM:-60} ;;
    *) echo "unknown shape $SHAPE (w2, w5, w6, w8, w9-tls, w9-h2c)" >&2; exit 2 ;;
esac
GW=${CONFIG:-$GW} # another gateway config for the shape (bench/ab's CONFIG_A, CONFIG_B: e.g. tracing on)
SYSCALLS="read write recvfrom sendto readv writev recvmsg sendmsg epoll_wait epoll_pwait epoll_ctl futex sched_yield
    connect close socket setsockopt ioctl nanosleep clock_nanosleep"
# the system calls, then the scheduler's counts (a thread switch, a move to the other core) per request
events=$(for s in $SYSCALLS; do printf 'syscalls:sys_enter_%s,' "$s"; done)context-switches,cpu-migrations,
# shellcheck source=../lib/pinned.sh
source "$ROOT/bench/lib/pinned.sh"
GW_RUN=$(ported "$GW")

# the proxy's command on core 0, at nice PROXY_NICE (default 0; -19 stands in for a core of its own on a shared
# machine: the others' tasks still run on it, but a waking proxy thread no longer waits behind them); an array, not a
# function, so that $! is the proxy's pid
pin0=(nice -n "${PROXY_NICE:-0}" taskset -c 0)
start_proxy() {
    case $1 in
        loomgate) "${pin0[@]}" "${BENCH_JVM[@]}" ${JVM_ARGS:-} -jar "$JAR" serve \
                      --config "$GW_RUN" > "$TMP.$1.log" 2>&1 & ;;
        loomgate-epoll|loomgate-epoll-block|loomgate-epoll-auto) # server.transport: epoll (issue 40), the shape's
            # own config otherwise; -block: the poller blocks on its carrier between events (-Dloomgate.epoll.block-millis,
            # EPOLL_BLOCK_MILLIS); -auto: block-millis=auto, blocking only while the carrier's core is not contended
            sed 's/^server:$/server:\n  transport: epoll/' "$GW_RUN" > "$TMP-epoll.yaml"
            block=0; [[ $1 == loomgate-epoll-block ]] && block=${EPOLL_BLOCK_MILLIS:-1}
            [[ $1 == loomgate-epoll-auto ]] && block=auto
            "${pin0[@]}" "${BENCH_JVM[@]}" \
                -Dloomgate.epoll.block-millis="$block" ${EPOLL_JVM_ARGS:-} -jar "$JAR" serve \
                --config "$TMP-epoll.yaml" > "$TMP.$1.log" 2>&1 & ;;
        loomgate-conscrypt) # server.ssl.provider: conscrypt (BoringSSL); TLS shapes only
            [[ $GW == bench/configs/gw-tls.yaml ]] || { echo "loomgate-conscrypt is for the TLS shapes" >&2; exit 2; }
            "${pin0[@]}" "${BENCH_JVM[@]}" -jar "$JAR" serve \
                --config "$(ported bench/configs/gw-tls-conscrypt.yaml)" > "$TMP.$1.log" 2>&1 & ;;
        haproxy) "${pin0[@]}" haproxy -db -f "$(ported "$SHARED/peers/$HAP")" > "$TMP.$1.log" 2>&1 & ;;
        floor-selector|floor-vselector) # bench/floor/SelectorRelayFloor: W2's shape, one Selector reading ready sockets
            # for the virtual threads (on a platform thread, or polled by a virtual one: floor-vselector)
            [[ $SHAPE == w2 ]] || { echo "$1 is for w2" >&2; exit 2; }
            mkdir -p /tmp/syscalls-floor
            "${JAVA%/java}/javac" -d /tmp/syscalls-floor "$ROOT"/bench/floor/*.java
            vthread=false; [[ $1 == floor-vselector ]] && vthread=true
            "${pin0[@]}" "${BENCH_JVM[@]}" -cp /tmp/syscalls-floor \
                -Dfloor.spins="${FLOOR_SPINS:-2}" -Dfloor.vthread=$vthread SelectorRelayFloor "$GW_PORT" "$ORIGIN_PORT" \
                > "$TMP.$1.log" 2>&1 & ;;
        floor-h2) # bench/floor/H2RelayFloor: W9's shape (h2 over TLS with JSSE's engine, or h2c), a virtual thread
            # per stream, none of the gateway's work; over h2c to /hello it is W8's
            [[ $SHAPE == w8 || $SHAPE == w9-h2c || $SHAPE == w9-tls ]] || { echo "floor-h2 is for w8, w9-h2c, w9-tls" >&2
                exit 2; }
            mkdir -p /tmp/syscalls-floor
            "${JAVA%/java}/javac" -d /tmp/syscalls-floor "$ROOT"/bench/floor/*.java
            floor=(H2RelayFloor "$GW_PORT" "$ORIGIN_PORT" /api/data)
            [[ $SHAPE == w8 ]] && floor=(H2RelayFloor "$GW_PORT" "$ORIGIN_PORT" /hello)
            if [[ $SHAPE == w9-tls ]]; then
                openssl pkcs12 -export -in "$BENCH_TLS_CERT" -inkey "$BENCH_TLS_KEY" -out /tmp/syscalls-floor/bench.p12 \
                    -passout pass:floor
                floor=(-Djdk.tls.server.newSessionTicketCount=0 "${floor[@]}" /tmp/syscalls-floor/bench.p12 floor)
            fi
            "${pin0[@]}" "${BENCH_JVM[@]}" -cp /tmp/syscalls-floor \
                "${floor[@]}" > "$TMP.$1.log" 2>&1 & ;;
        floor|floor-conscrypt) # bench/floor: a read and a write per message each way, no HTTP (W2's shape; W5's, W6's
            # with TLS: JSSE's engine over the channel with the gateway's suites, or Conscrypt's engine with its own)
            mkdir -p /tmp/syscalls-floor
            "${JAVA%/java}/javac" -d /tmp/syscalls-floor "$ROOT"/bench/floor/*.java
            if [[ $SHAPE == w5 || $SHAPE == w6 ]]; then
                openssl pkcs12 -export -in "$BENCH_TLS_CERT" -inkey "$BENCH_TLS_KEY" -out /tmp/syscalls-floor/bench.p12 \
                    -passout pass:floor
                floor=(TlsRelayFloor "$GW_PORT" "$ORIGIN_PORT" /tmp/syscalls-floor/bench.p12 floor)
                if [[ $1 == floor-conscrypt ]]; then # the jar the gateway's build resolved (./mvnw install)
                    uber=$(ls ~/.m2/repository/org/conscrypt/conscrypt-openjdk-uber/*/conscrypt-openjdk-uber-*.jar | tail -1)
                    floor=(-cp "/tmp/syscalls-floor:$uber" -Dfloor.provider=conscrypt "${floor[@]}")
                else
                    floor=(-cp /tmp/syscalls-floor -Djdk.tls.server.newSessionTicketCount=0 "${floor[@]}" gateway)
                fi
            elif [[ $SHAPE == w2 && $1 == floor ]]; then
                floor=(-cp /tmp/syscalls-floor RelayFloor "$GW_PORT" "$ORIGIN_PORT")
            else
                echo "the floor relays speak no HTTP/2: floor for w2, w5 or w6, floor-conscrypt for w5 or w6" >&2; exit 2
            fi
            "${pin0[@]}" "${BENCH_JVM[@]}" "${floor[@]}" \
                > "$TMP.$1.log" 2>&1 & ;;
        floor-epoll) # bench/floor-epoll (issue 40): RelayFloor (w2) or H2RelayFloor over h2c (w8, w9-h2c) on the
            # gateway's epoll transport (module loomgate-epoll, JDK 22+; its classes from the gateway's jar)
            case $SHAPE in
                w2) floor=(EpollRelayFloor "$GW_PORT" "$ORIGIN_PORT") ;;
                w8) floor=(EpollH2RelayFloor "$GW_PORT" "$ORIGIN_PORT" /hello) ;;
                w9-h2c) floor=(EpollH2RelayFloor "$GW_PORT" "$ORIGIN_PORT" /api/data) ;;
                *) echo "floor-epoll is for w2, w8 and w9-h2c" >&2; exit 2 ;;
            esac
            mkdir -p /tmp/syscalls-floor
            "${JAVA%/java}/javac" -cp "$JAR" -d /tmp/syscalls-floor "$ROOT"/bench/floor/*.java \
                "$ROOT"/bench/floor-epoll/*.java
            "${pin0[@]}" "${BENCH_JVM[@]}" -cp "/tmp/syscalls-floor:$JAR" \
                --enable-native-access=ALL-UNNAMED -Dloomgate.epoll.spins="${EPOLL_SPINS:-4}" ${EPOLL_JVM_ARGS:-} "${floor[@]}" \
                > "$TMP.$1.log" 2>&1 & ;;
        naive) # the harness's seed pipe (no HTTP: two virtual threads per connection copying bytes, so more waits than
               # one thread would make: no floor), JDK 25 with the launcher's heap flags
            [[ $SHAPE == w2 ]] || { echo "naive speaks no TLS or HTTP/2: w2 only" >&2; exit 2; }
            mkdir -p /tmp/syscalls-naive
            "${JAVA%/java}/javac" -d /tmp/syscalls-naive "$SHARED/naive/NaiveProxy.java"
            "${pin0[@]}" "${BENCH_JVM[@]}" -DuseVirtual=true \
                -cp /tmp/syscalls-naive NaiveProxy > "$TMP.$1.log" 2>&1 & ;;
        *) echo "unknown proxy $1" >&2; exit 2 ;;
    esac
    P=$!
    pids+=("$P")
    await_answer "$1" "$URL/hello" "$TMP.$1.log"
}
stat_field() { awk -v f="$2" '{ print $f }' "/proc/$1/stat"; }
load() { # seconds: the shape's load for that long; prints the tool's output
    if [[ $SHAPE == w2 ]]; then
        nice -n "${LOAD_NICE:-0}" taskset -c 1 wrk -t1 -c"${CONNS:-50}" -d"$1"s "$URL/hello" 2>&1 || true
    elif [[ $SHAPE == w5 ]]; then
        nice -n "${LOAD_NICE:-0}" taskset -c 1 wrk -t1 -c"${CONNS:-256}" -d"$1"s "$URL/hello" 2>&1 || true
    elif [[ $SHAPE == w6 ]]; then
        nice -n "${LOAD_NICE:-0}" taskset -c 1 wrk -t1 -c"${CONNS:-64}" -d"$1"s -H 'Connection: close' "$URL/hello" 2>&1 || true
    elif [[ $SHAPE == w8 ]]; then
        # h2load under timeout, as harness-phases: its timing mode never stops a client whose TLS handshake completes
        # after its duration ended (that client goes on sending requests), so at load 25 it did not end (stop 38).
        timeout $(($1 + 60)) nice -n "${LOAD_NICE:-0}" taskset -c 1 h2load -t1 -c100 -m10 -D"$1" "$URL/hello" 2>&1 || true
    else
        timeout $(($1 + 60)) nice -n "${LOAD_NICE:-0}" taskset -c 1 h2load -t1 -c200 -m10 -D"$1" "$URL/api/data" 2>&1 || true
    fi
}
requests() { # from the tool's output: requests completed
    if [[ $SHAPE == w2 || $SHAPE == w5 || $SHAPE == w6 ]]; then awk '/requests in/ { print $1 }' <<< "$1"
    else awk '/^requests:/ { print $8 }' <<< "$1"; fi
}

carriers() { # pid: "run_ns wait_ns slices" summed over the JVM's carrier threads (ForkJoinPool-N-worker-M)
    local t r=0 w=0 n=0 a b c
    for t in /proc/"$1"/task/*; do
        [[ $(cat "$t/comm" 2>/dev/null) == ForkJoinPool-* ]] || continue
        read -r a b c < "$t/schedstat"; r=$((r + a)); w=$((w + b)); n=$((n + c))
    done
    echo "$r $w $n"
}
hogs=()
start_hogs() { # HOG busy loops on the proxy's core (a shared core: other processes runnable beside the proxy)
    local i
    for ((i = 0; i < ${HOG:-0}; i++)); do nice -n "${HOG_NICE:-0}" taskset -c 0 sh -c 'while :; do :; done' & hogs+=($!); pids+=($!); done
}
stop_hogs() { local h; for h in "${hogs[@]}"; do kill "$h" 2>/dev/null || true; wait "$h" 2>/dev/null || true; done; hogs=(); }

for round in $(seq "${ROUNDS:-2}"); do
    for proxy in ${PROXIES:-loomgate haproxy}; do
        start_hogs
        start_proxy "$proxy"
        for ((left = WARM; left > 0; left -= 10)); do load $((left < 10 ? left : 10)) > /dev/null; done
        u0=$(stat_field "$P" 14); s0=$(stat_field "$P" 15); c0=$(c2_ticks "$P"); k0=$(carriers "$P"); t0=$(date +%s%N)
        perf stat -x, -e "${events%,}" -p "$P" -o "$TMP.$proxy.perf" &
        perf_pid=$!
        out=$(load 15)
        kill -INT "$perf_pid"; wait "$perf_pid" 2>/dev/null || true
        u1=$(stat_field "$P" 14); s1=$(stat_field "$P" 15); c1=$(c2_ticks "$P"); k1=$(carriers "$P"); t1=$(date +%s%N)
        n=$(requests "$out")
        awk -v name="$proxy" -v round="$round" -v n="$n" -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v c=$((c1 - c0)) \
            -v load="$(cut -d' ' -f1 /proc/loadavg)" \
            'BEGIN { printf "round %s %-9s %7.0f req/s  CPU %6.1f us/req (user %5.1f, kernel %5.1f)  C2 %4.1f s  load %s\n",
                     round, name, n / 15, (u + s) * 10000 / n, u * 10000 / n, s * 10000 / n, c / 100, load }'
        awk -F, -v n="$n" '$1 + 0 > 0 { sub("syscalls:sys_enter_", "", $3); sub("context-switches", "cs", $3); sub("cpu-migrations", "migr", $3)
                line = line sprintf(" %s %.2f", $3, $1 / n) }
            END { print "    system calls per request:" line }' "$TMP.$proxy.perf"
        if [[ $proxy == loomgate* ]]; then # the carriers' run and run-queue wait in the window (per cent of wall time)
            awk -v a="$k0" -v b="$k1" -v t=$((t1 - t0)) -v n="$n" 'BEGIN { split(a, x, " "); split(b, y, " ")
                printf "    carriers: ran %.1f%%, waited runnable %.1f%% of the window, %.0f us per slice, %.2f slices per request\n",
                    (y[1] - x[1]) * 100 / t, (y[2] - x[2]) * 100 / t, (y[3] > x[3]) ? (y[2] - x[2]) / (y[3] - x[3]) / 1000 : 0,
                    (y[3] - x[3]) / n }'
        fi
        kill "$P"; wait "$P" 2>/dev/null || true
        stop_hogs
        sleep 2
    done
done
