#!/usr/bin/env bash
# CPU per request at equal, fixed request rates (issue 40, session 54). bench/syscalls loads each proxy as hard as
# it goes (wrk, h2load closed loop), so a proxy that serves 23-50% fewer requests/s is measured at another load than
# HAProxy beside it, and its CPU per request mixes its cost with its rate. Here h2load's --rps holds every proxy to
# the same offered rate; per rate and proxy: requests done, errors, the achieved rate, CPU µs per request (user,
# kernel, from /proc/PID/stat over the window), latency p50/p99 (from h2load's --log-file: h2load itself prints only
# min, max, mean and sd) and the machine's load average (1 minute) at the window's end. Proxies alternate within a
# rate (ROUNDS rounds of PROXIES in turn), each started fresh and warmed at that rate before its counted window.
# Pinning as bench/syscalls: the proxy on core 0, the harness's Go origin and h2load (one thread) on core 1.
#
#   bench/fixedrate/run.sh w2     # h2load --h1, 50 keep-alive connections, GET /hello, instant origin (W2's shape)
#   bench/fixedrate/run.sh w8     # h2c (prior knowledge), 100 clients x 10 streams, GET /hello (W8's shape)
#   RATES="5000 10000 15000" ROUNDS=2 PROXIES="loomgate loomgate-epoll haproxy" bench/fixedrate/run.sh w2
#   WARM=30 WINDOW=30 CONNS=50 STREAMS=10 ...   # warm-up and window seconds (default 30 and 30), clients, streams
#   EPOLL_JVM_ARGS="-Dloomgate.epoll.block-millis=auto" ...   # flags for loomgate-epoll (JVM_ARGS for loomgate)
#
# Proxies: loomgate (server.transport jdk, the shape's config: bench/configs/gateway-bench.yaml or gw-h2c.yaml),
# loomgate-epoll (the same config with server.transport: epoll, the poller's defaults unless EPOLL_JVM_ARGS) and
# haproxy (the harness's one-thread configs, peers/haproxy-t1.cfg or haproxy-t1-h2c.cfg). A rate is total requests/s:
# each of the CONNS clients gets --rps RATE/CONNS. If the achieved rate falls short of RATE (the load tool or the
# proxy saturated, or a loaded machine), the line says so ("short"); compare CPU per request only between lines
# whose achieved rates match.
#
# Ports (GW_PORT 29661, ORIGIN_PORT 29660, ADMIN_PORT 29671 by default, apart from the harness's 18080/18081): the
# configs run as copies with them. Needs h2load and haproxy (installed by ../shared/bench/run.sh on first use) and
# one earlier harness run (its origin binary in /tmp/loomgate-bench). Work files: /tmp/fixedrate-GW_PORT.*
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
cd "$ROOT"
SHAPE=${1:?usage: bench/fixedrate/run.sh w2|w8}
GW_PORT=${GW_PORT:-29661} ORIGIN_PORT=${ORIGIN_PORT:-29660} ADMIN_PORT=${ADMIN_PORT:-29671}
export ORIGIN_PORT # bench/lib/pinned.sh starts the origin there
TMP=/tmp/fixedrate-$GW_PORT
WARM=${WARM:-30} WINDOW=${WINDOW:-30} ROUNDS=${ROUNDS:-1}
URL=http://127.0.0.1:$GW_PORT/hello
case $SHAPE in
    w2) GW=bench/configs/gateway-bench.yaml HAP=haproxy-t1.cfg CONNS=${CONNS:-50} RATES=${RATES:-"5000 10000 15000"}
        h2opts=(--h1) ;;
    w8) GW=bench/configs/gw-h2c.yaml HAP=haproxy-t1-h2c.cfg CONNS=${CONNS:-100} RATES=${RATES:-"5000 10000 15000"}
        h2opts=(-m"${STREAMS:-10}") ;;
    *) echo "unknown shape $SHAPE (w2, w8)" >&2; exit 2 ;;
esac
mkdir -p "$TMP-conf"
# the harness beside the main checkout, also from a worktree elsewhere (pinned.sh looks beside ROOT)
if [[ -z ${SHARED:-} && ! -d $ROOT/../shared/bench ]]; then
    SHARED=$(cd "$(git rev-parse --path-format=absolute --git-common-dir)/../../shared/bench" 2>/dev/null && pwd) ||
        { echo "no ../shared/bench beside $ROOT or its main checkout: set SHARED=/path/to/shared/bench" >&2; exit 2; }
fi
# shellcheck source=../lib/pinned.sh
source "$ROOT/bench/lib/pinned.sh"
GW_RUN=$(ported "$GW")

start_proxy() { # the proxy on core 0, fresh; sets P and waits (with a deadline) for its first answer
    case $1 in
        loomgate) taskset -c 0 "${BENCH_JVM[@]}" ${JVM_ARGS:-} -jar "$JAR" serve --config "$GW_RUN" > "$TMP.$1.log" 2>&1 & ;;
        loomgate-epoll) sed 's/^server:$/server:\n  transport: epoll/' "$GW_RUN" > "$TMP-conf/epoll.yaml"
            taskset -c 0 "${BENCH_JVM[@]}" ${EPOLL_JVM_ARGS:-} -jar "$JAR" serve --config "$TMP-conf/epoll.yaml" > "$TMP.$1.log" 2>&1 & ;;
        haproxy) taskset -c 0 haproxy -db -f "$(ported "$SHARED/peers/$HAP")" > "$TMP.$1.log" 2>&1 & ;;
        *) echo "unknown proxy $1 (loomgate, loomgate-epoll, haproxy)" >&2; exit 2 ;;
    esac
    P=$!
    pids+=("$P")
    await_answer "$1" "$URL" "$TMP.$1.log"
}
load() { # rate seconds [log file]: h2load at that total rate for that long (under timeout: see bench/syscalls)
    local rps log=()
    rps=$(awk -v r="$1" -v c="$CONNS" 'BEGIN { printf "%g", r / c }')
    [[ -n ${3:-} ]] && log=(--log-file="$3")
    timeout $(($2 + 60)) taskset -c 1 h2load -t1 -c"$CONNS" "${h2opts[@]}" --rps="$rps" -D"$2" "${log[@]}" "$URL" 2>&1 || true
}
cpu() { awk '{ print $14, $15 }' "/proc/$1/stat"; } # user and kernel ticks (1/100 s)
cores() { awk '/^cpu[01] / { printf "%d %d ", $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 } END { print "" }' /proc/stat; } # idle, all: core 0, 1

echo "# fixedrate $SHAPE: CONNS=$CONNS ${h2opts[*]} RATES=\"$RATES\" PROXIES=\"${PROXIES:-loomgate loomgate-epoll haproxy}\"" \
     "ROUNDS=$ROUNDS WARM=${WARM}s WINDOW=${WINDOW}s JAR=$JAR nproc=$(nproc) $(date -u +%FT%TZ)"
for rate in $RATES; do
    for round in $(seq "$ROUNDS"); do
        for proxy in ${PROXIES:-loomgate loomgate-epoll haproxy}; do
            start_proxy "$proxy"
            load "$rate" "$WARM" > "$TMP.warm.out"
            read -r u0 s0 < <(cpu "$P"); read -r i00 a00 i10 a10 < <(cores)
            rm -f "$TMP.lat"
            out=$(load "$rate" "$WINDOW" "$TMP.lat")
            read -r u1 s1 < <(cpu "$P"); read -r i01 a01 i11 a11 < <(cores)
            la=$(cut -d' ' -f1 /proc/loadavg)
            echo "$out" > "$TMP.$SHAPE.$proxy.$rate.$round.out"
            # h2load: "finished in 30.00s, 4999.87 req/s, ..." and "requests: T total, S started, D done, OK succeeded,
            # F failed, E errored, TO timeout" (h2load counts the errored and timed-out ones among the failed ones), and
            # the answers that were not 2xx
            # (started - done: the requests still in flight when the window ended, up to CONNS x STREAMS when the
            # offered rate was not met)
            read -r secs done_ errs non2xx inflight < <(awk '
                /^finished in/ { s = $3; sub("s,", "", s) }
                /^requests:/ { d = $6; e = $10; f = $4 - $6 }
                /^status codes:/ { n = $5 + $7 + $9 }
                END { print s + 0, d + 0, e + 0, n + 0, f + 0 }' <<< "$out")
            read -r p50 p99 < <(cut -f3 "$TMP.lat" | sort -n | awk '{ v[NR] = $1 }
                END { if (NR == 0) { print "- -"; exit }
                      i = int(NR * 0.50); if (i < 1) i = 1; j = int(NR * 0.99); if (j < 1) j = 1
                      printf "%.2f %.2f\n", v[i] / 1000, v[j] / 1000 }')
            awk -v rate="$rate" -v round="$round" -v name="$proxy" -v n="$done_" -v e="$errs" -v x="$non2xx" \
                -v secs="$secs" -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v p50="$p50" -v p99="$p99" -v la="$la" \
                -v f="$inflight" -v c0=$(((a01 - a00 - i01 + i00) * 100 / (a01 - a00 + 1))) \
                -v c1=$(((a11 - a10 - i11 + i10) * 100 / (a11 - a10 + 1))) 'BEGIN {
                got = secs > 0 ? n / secs : 0
                printf "rate %6d round %s %-15s done %8d failed %d non-2xx %d  achieved %8.1f req/s%s  CPU %6.1f us/req (user %5.1f, kernel %5.1f)  p50 %s ms p99 %s ms  in flight %d  cores busy %d%% %d%%  load %s\n",
                    rate, round, name, n, e, x, got, got < rate * 0.98 ? " (short)" : "",
                    n ? (u + s) * 10000 / n : 0, n ? u * 10000 / n : 0, n ? s * 10000 / n : 0, p50, p99, f, c0, c1, la }'
            kill "$P"; wait "$P" 2>/dev/null || true
            sleep 2
        done
    done
done
