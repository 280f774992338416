#!/usr/bin/env bash
# Where the gateway's memory goes (issue 39, part 1): RSS and Native Memory Tracking per category at start, idle after
# a warm-up, with W3's 10,000 idle keep-alive connections held, during W1 at 10,000 connections and with 10,000
# requests in flight at once (what W1 at 10,000 connections holds on a machine that keeps up); and the same
# phases for each GC, or for the container image under a 256 MiB limit. The load is the shared harness's
# (../shared/bench: its Go origin, its W3 client holdconns, wrk), pinned as the harness pins it: the gateway on core 0,
# the origin and the load on core 1.
#   bench/memory/run.sh nmt         # the launcher's defaults (./loomgate serve) with -XX:NativeMemoryTracking=summary
#   bench/memory/run.sh gc          # ROUNDS x GCS interleaved (serial g1 parallel), no NMT: RSS, CPU us/request;
#                                   # a GCS item may also be JVM options, comma-separated: GCS="serial -Xms32m,-XX:+UseSerialGC"
#   bench/memory/run.sh container   # the image (IMAGE=localhost/loomgate:0.1.0) under podman run --memory 256m;
#                                   # TRANSPORTS="jdk epoll": ROUNDS x TRANSPORTS interleaved, a fresh container
#                                   # each, serve --transport appended to the command
#   bench/memory/run.sh w3          # W3 alone as the harness measures it (warm-up to a plateau, wrk -c50 3 s, RSS
#                                   # before and 2 s after holdconns is READY), ROUNDS x VARIANTS interleaved; a
#                                   # VARIANTS item is JVM options, comma-separated, or "default" (the launcher's
#                                   # own); each run keeps its GC log, GC.heap_info and smaps_rollup before and
#                                   # while held
# Options (environment): ROUNDS=2 GCS="serial g1 parallel" WARM_S=30 W1_CONNS=10000 W2_CONNS=256 W3_CONNS=10000
#   INFLIGHT=10000 (requests held in flight at once; 0: none) DURATION=10 LOOMGATE_JAVA_OPTS (added to every gateway
#   of nmt and gc) MEMORY=256m (container) NMT=1 (container:
#   JAVA_TOOL_OPTIONS=-XX:NativeMemoryTracking=summary, so the shipped flags plus NMT). Output: $OUT (one file per
#   phase with the NMT summary, and summary.tsv).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SHARED=${SHARED:-$(cd "$ROOT/.." && pwd)/shared/bench}
[[ -d $SHARED ]] || SHARED=/work/shared/bench
MODE=${1:-nmt}
ROUNDS=${ROUNDS:-2}
GCS=${GCS:-"serial g1 parallel"}
WARM_S=${WARM_S:-30}
INFLIGHT=${INFLIGHT:-10000} W1_CONNS=${W1_CONNS:-10000} W2_CONNS=${W2_CONNS:-256} W3_CONNS=${W3_CONNS:-10000}
DURATION=${DURATION:-10}
MEMORY=${MEMORY:-256m}
IMAGE=${IMAGE:-localhost/loomgate:0.1.0}
JDK=${JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}
# Not the harness's ports (18080, 18081): another run of it may be going on.
TOKEN=bench-token-0123456789abcdef0123456789 # the admin listener's, for /metrics
HOST=127.0.0.1 ORIGIN_PORT=${ORIGIN_PORT:-23080} PORT=${PORT:-23081} ADMIN_PORT=${ADMIN_PORT:-23901}
WORK=${WORK:-/tmp/loomgate-memory}
OUT=${OUT:-$WORK/results/$(date -u +%Y%m%d-%H%M%S)-$MODE}
BIN=$WORK/bin
HZ=$(getconf CLK_TCK)
mkdir -p "$OUT" "$BIN"
ulimit -n "$(ulimit -Hn)"
LOAD="taskset -c 1" PROXY_CORE="taskset -c 0"

log() { echo "[$(date -u +%T)] $*" | tee -a "$OUT/log.txt" >&2; }
kb() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"; }
ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }
reset_peak() { echo 5 >"/proc/$1/clear_refs"; }
wait_ready() { # poll with a deadline until the URL answers 200, while process $3 lives
    local deadline=$((SECONDS + $2))
    while ((SECONDS < deadline)); do
        kill -0 "$3" 2>/dev/null || return 1
        [[ $(curl -s -o /dev/null -m 2 -w '%{http_code}' "$1") == 200 ]] && return 0
        sleep 0.2
    done
    return 1
}

# In a container (CGROUP: its memory cgroup, set by the container mode) what the kernel weighs against the limit: the
# cgroup's charge (anonymous memory and page cache) and its peak, and the OOM kills in it; cgroup v2 or v1 (this
# machine's). Empty outside a container.
cgroup_now() {
    [[ -n ${CGROUP:-} ]] || return 0
    local cur peak anon file kernel kills
    if [[ -f $CGROUP/memory.current ]]; then
        cur=$(<"$CGROUP/memory.current") peak=$(cat "$CGROUP/memory.peak" 2>/dev/null || echo 0)
        anon=$(awk '$1 == "anon" { print $2 }' "$CGROUP/memory.stat") file=$(awk '$1 == "file" { print $2 }' "$CGROUP/memory.stat")
        kernel=$(awk '$1 == "kernel" { print $2 }' "$CGROUP/memory.stat")
        kills=$(awk '$1 == "oom_kill" { print $2 }' "$CGROUP/memory.events")
    else
        cur=$(<"$CGROUP/memory.usage_in_bytes") peak=$(<"$CGROUP/memory.max_usage_in_bytes")
        anon=$(awk '$1 == "total_rss" { print $2 }' "$CGROUP/memory.stat") file=$(awk '$1 == "total_cache" { print $2 }' "$CGROUP/memory.stat")
        kernel=$(<"$CGROUP/memory.kmem.usage_in_bytes")   # sockets' and other kernel objects, charged to the cgroup
        kills=$(awk '$1 == "oom_kill" { print $2 }' "$CGROUP/memory.oom_control")
    fi
    echo ", cgroup $((cur / 1024)) kB (peak $((peak / 1024)) kB; anon $((anon / 1024)) kB, file $((file / 1024)) kB, kernel $((${kernel:-0} / 1024)) kB), oom_kill ${kills:-?}"
}

# NMT's summary of the JVM (when it tracks) and the RSS, in one file per phase; prints "rss_kb committed_kb".
snapshot() { # snapshot PID NAME
    local f=$OUT/$2.txt rss committed=-
    rss=$(kb "$1" VmRSS 2>/dev/null) || rss=gone
    local m
    m=$(curl -s -m 10 -H "Authorization: Bearer $TOKEN" "http://$HOST:$ADMIN_PORT/metrics" |
        awk '/^loomgate_client_connections / { c = $2 } /^loomgate_route_in_flight/ { f += $2 }
             END { printf "client connections %d, requests in flight %d", c, f }')
    { echo "# $2: VmRSS ${rss} kB, VmHWM $(kb "$1" VmHWM) kB, threads $(kb "$1" Threads), load $(cut -d' ' -f1-3 /proc/loadavg), $m$(cgroup_now)"
      "$JDK/bin/jcmd" "$1" VM.native_memory summary 2>&1 || true; } >"$f"
    grep -q '^Total: reserved=' "$f" && committed=$(sed -n 's/^Total: reserved=[0-9]*KB, committed=\([0-9]*\)KB.*/\1/p' "$f")
    echo "$rss $committed"
}

# One wrk run after a short warm-up at the same connections: "rps errors cpu_us_per_req peak_rss_kb"; NMT halfway.
wrk_phase() { # wrk_phase PID NAME CONNS PATH
    local pid=$1 name=$2 c=$3 url=http://$HOST:$PORT$4 out=$OUT/$2.wrk.txt
    $LOAD wrk -t1 -c"$c" -d3s --timeout 10s "$url" >/dev/null 2>&1 || true
    sleep 1
    reset_peak "$pid"
    local t0 t1 s e
    t0=$(ticks "$pid"); s=$(date +%s.%N)
    $LOAD wrk -t1 -c"$c" -d"${DURATION}s" --timeout 10s --latency "$url" >"$out" 2>&1 &
    local w=$!
    sleep $((DURATION / 2))
    snapshot "$pid" "$name" >/dev/null
    wait "$w" || true
    e=$(date +%s.%N); t1=$(ticks "$pid")
    local reqs errs
    reqs=$(sed -n 's/^ *\([0-9]*\) requests in.*/\1/p' "$out")
    errs=$(awk '/Socket errors/ { for (i = 3; i <= NF; i++) s += $i + 0 } /Non-2xx/ { s += $NF } END { print s + 0 }' "$out")
    awk -v r="${reqs:-0}" -v s="$s" -v e="$e" -v a="$t0" -v b="$t1" -v hz="$HZ" -v err="${errs:-0}" -v hwm="$(kb "$pid" VmHWM)" \
        'BEGIN { printf "%.0f %s %.1f %s\n", r / (e - s), err, (r > 0 ? (b - a) / hz * 1e6 / r : 0), hwm }'
}

# W3: hold W3_CONNS idle keep-alive connections; "kb_per_conn rss_before rss_during" and NMT while held
# (W3_SETTLE seconds after holdconns is READY: 3 here, 2 in the harness and in the w3 mode).
w3_phase() { # w3_phase PID
    local pid=$1 out=$OUT/w3.holdconns.txt before during h
    before=$(kb "$pid" VmRSS)
    timeout 150 $LOAD "$BIN/holdconns" -addr "$HOST:$PORT" -n "$W3_CONNS" -hold 15s >"$out" 2>&1 &
    h=$!
    local deadline=$((SECONDS + 90))
    until grep -q '^READY' "$out" || ((SECONDS > deadline)) || ! kill -0 "$h" 2>/dev/null; do sleep 0.2; done
    sleep "${W3_SETTLE:-3}"
    during=$(snapshot "$pid" w3-held | cut -d' ' -f1)
    if [[ -n ${W3_LABEL:-} ]]; then # the w3 mode: the heap's shape and the collections so far, while held
        heap_state "$pid" "$W3_LABEL.w3-held"
        grep -c 'Pause' "$OUT/$W3_LABEL.gc.txt" >"$OUT/$W3_LABEL.gcs-held" 2>/dev/null || true
    fi
    wait "$h" || true
    local opened
    opened=$(sed -n 's/.* opened=\([0-9]*\).*/\1/p' <(grep '^RESULT' "$out"))
    awk -v a="$before" -v b="$during" -v n="${opened:-0}" \
        'BEGIN { printf "%s %s %s %s\n", (n > 0 ? sprintf("%.2f", (b - a) / n) : "nan"), a, b, n }'
}

# INFLIGHT requests held in flight at once (the origin answers after 20 s): the state W1 at 10,000 connections aims
# at, which this shared machine's load generator does not reach at 100 ms; "rss_kb nmt_committed_kb" while held.
# Upstream, 4,096 of them reach the origin (upstream.max-connections per endpoint) and the rest wait for a connection.
inflight_phase() { # inflight_phase PID NAME
    local pid=$1 out=$OUT/$2.wrk.txt w
    $LOAD wrk -t1 -c"$INFLIGHT" -d25s --timeout 40s "http://$HOST:$PORT/api/data?delay=20000" >"$out" 2>&1 &
    w=$!
    sleep 18
    snapshot "$pid" "$2"
    wait "$w" || true
}

# Every phase on one running gateway (its JVM's PID): start, warm-up, idle, W3, W2, W1.
phases() { # phases PID LABEL
    local pid=$1 label=$2 start idle w3 w2 w1
    start=$(snapshot "$pid" "$label.start")
    local t0=$SECONDS
    while ((SECONDS - t0 < WARM_S)); do $LOAD wrk -t1 -c256 -d5s "http://$HOST:$PORT/hello" >/dev/null 2>&1 || true; done
    sleep 5
    idle=$(snapshot "$pid" "$label.idle")
    w3=$(w3_phase "$pid"); mv "$OUT/w3-held.txt" "$OUT/$label.w3-held.txt"
    w2=$(wrk_phase "$pid" "$label.w2-$W2_CONNS" "$W2_CONNS" /hello)
    w1=$(wrk_phase "$pid" "$label.w1-$W1_CONNS" "$W1_CONNS" /api/data)
    local held="- -"
    ((INFLIGHT > 0)) && held=$(inflight_phase "$pid" "$label.inflight-$INFLIGHT")
    sleep 5
    local after
    after=$(snapshot "$pid" "$label.after")
    # label start_rss start_nmt idle_rss idle_nmt w3_kb_per_conn w3_before w3_during w3_opened
    # w2_rps w2_err w2_us w2_peak w1_rps w1_err w1_us w1_peak inflight_rss inflight_nmt after_rss after_nmt load
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$start" "$idle" "$w3" "$w2" "$w1" "$held" "$after" \
        "$(cut -d' ' -f1-3 /proc/loadavg)" | tr ' ' '\t' | tee -a "$OUT/summary.tsv"
    log "$label: start RSS ${start% *} kB; idle ${idle% *} kB; W3 ${w3%% *} kB/conn; W2 (rps err us/req peak) $w2; W1 $w1; $INFLIGHT in flight: RSS ${held% *} kB"
}

# The heap's shape and the process's memory by kind, into $OUT/NAME.heap.txt; NMT's summary too when the variant
# tracks (-XX:NativeMemoryTracking=summary), so W3's rise outside the heap can be split by category.
heap_state() { # heap_state PID NAME
    { "$JDK/bin/jcmd" "$1" GC.heap_info 2>&1 | sed 1d; echo; cat "/proc/$1/smaps_rollup"
      if tr '\0' ' ' <"/proc/$1/cmdline" | grep -q NativeMemoryTracking; then
          echo; "$JDK/bin/jcmd" "$1" VM.native_memory summary 2>&1 | sed 1d
      fi; } >"$OUT/$2.heap.txt" 2>&1
}

# W3 as the harness runs it on a fresh gateway: its warm-up (/hello at 256 connections in 5 s rounds until
# requests/s stops rising by more than 5%, at most WARM_MAX s), wrk -c50 for 3 s, 2 s of quiet, RSS before, holdconns,
# RSS 2 s after READY. Also the heap's shape before and while held and, after, the GC log's collections in the window.
w3_only() { # w3_only PID LABEL
    local pid=$1 label=$2 best=0 r n=0 t0=$SECONDS curve=""
    while ((SECONDS - t0 < ${WARM_MAX:-60})); do
        r=$($LOAD wrk -t1 -c256 -d5s "http://$HOST:$PORT/hello" 2>&1 | awk '/^Requests\/sec/ { printf "%.0f", $2 }')
        r=${r:-0}; curve+=" $r"; n=$((n + 1))
        ((n >= 2 && r * 100 <= best * 105)) && break
        ((r > best)) && best=$r
    done
    $LOAD wrk -t1 -c50 -d3s "http://$HOST:$PORT/hello" >/dev/null 2>&1 || true
    sleep 2
    heap_state "$pid" "$label.w3-before"
    local gcs0 w3
    gcs0=$(grep -c 'Pause' "$OUT/$label.gc.txt" 2>/dev/null || true)
    w3=$(W3_SETTLE=2 W3_LABEL=$label w3_phase "$pid"); mv "$OUT/w3-held.txt" "$OUT/$label.w3-held.txt"
    mv "$OUT/w3.holdconns.txt" "$OUT/$label.w3.holdconns.txt"
    local gcs1
    gcs1=$(cat "$OUT/$label.gcs-held" 2>/dev/null || echo "$gcs0")
    # label kb_per_conn rss_before rss_during opened collections_in_window warm_up_s load
    printf '%s\t%s\t%s\t%s\t%s\n' "$label" "$w3" "$((gcs1 - gcs0))" "$((SECONDS - t0))" \
        "$(cut -d' ' -f1-3 /proc/loadavg)" | tr ' ' '\t' | tee -a "$OUT/summary.tsv"
    log "$label: warm-up rps per 5 s:$curve; W3 (kB/conn before during opened) $w3;" \
        "collections during W3 $((gcs1 - gcs0))"
}

config() { # the bench's gateway config on PORT, admin off the client port
    cat >"$WORK/gateway.yaml" <<YAML
server: { address: 0.0.0.0, port: $PORT, max-connections: 10000 }
admin: { address: 127.0.0.1, port: $ADMIN_PORT, auth-token: $TOKEN }
access-log: { enabled: false }
routes:
  - { id: origin, uri: "http://$HOST:$ORIGIN_PORT", predicates: [ "Path=/**" ] }
YAML
}

gateway_pid=""
origin_pid=""
container=""
cleanup() {
    [[ -n $gateway_pid ]] && kill "$gateway_pid" 2>/dev/null
    [[ -n $container ]] && podman --runtime runc rm -f -t 5 "$container" >/dev/null 2>&1
    [[ -n $origin_pid ]] && kill "$origin_pid" 2>/dev/null
    return 0
}
trap cleanup EXIT

start_launcher() { # start_launcher EXTRA_JAVA_OPTS: ./loomgate serve, the launcher's own defaults plus the options
    LOOMGATE_JAVA_OPTS="${LOOMGATE_JAVA_OPTS:-} $1" $PROXY_CORE "$ROOT/loomgate" serve --config "$WORK/gateway.yaml" \
        --no-watch >"$OUT/gateway.$2.log" 2>&1 &
    gateway_pid=$!
    wait_ready "http://$HOST:$PORT/hello" 120 "$gateway_pid" || { log "the gateway did not answer (see $OUT/gateway.$2.log)"; exit 1; }
    sleep 2
    tr '\0' ' ' <"/proc/$gateway_pid/cmdline" >"$OUT/$2.cmdline"
}
stop_gateway() {
    kill -TERM "$gateway_pid"; wait "$gateway_pid" 2>/dev/null || true; gateway_pid=""
}

# One container of the image under MEMORY, every phase on it: run_container LABEL TRANSPORT (empty: the image's own
# CMD, which leaves server.transport to the mounted config; else serve --transport TRANSPORT appended, as an operator
# asks for epoll). Its files are named by LABEL; the kernel's OOM kills counted over its run.
run_container() {
    local label=$1 transport=$2 kills0 envs cmd=()
    kills0=$(dmesg 2>/dev/null | grep -c 'Killed process' || true)   # the kernel's OOM kills so far
    envs=(-e "LOOMGATE_ADMIN_TOKEN=$TOKEN")
    [[ ${NMT:-0} == 1 ]] && envs+=(-e JAVA_TOOL_OPTIONS=-XX:NativeMemoryTracking=summary)
    for e in ${CONTAINER_ENV:-}; do envs+=(-e "$e"); done   # e.g. CONTAINER_ENV=MALLOC_ARENA_MAX=2
    # e.g. CONTAINER_ARGS='--entrypoint=["/opt/loomgate/jre/bin/java","-XX:MaxRAMPercentage=50",...]' (no spaces)
    for e in ${CONTAINER_ARGS:-}; do envs+=("$e"); done
    # --entrypoint drops the image's CMD, and a transport replaces it: serve's arguments in full then
    [[ -n ${CONTAINER_ARGS:-}$transport ]] && cmd=(serve --config /etc/loomgate/gateway.yaml)
    [[ -n $transport ]] && cmd+=(--transport "$transport")
    container=$(podman --runtime runc run -d --network host --memory "$MEMORY" --memory-swap "$MEMORY" \
        --cpuset-cpus 0 --ulimit nofile=20000:20000 --ulimit nproc=4096:4096 "${envs[@]}" \
        -v "$WORK/gateway.yaml:/etc/loomgate/gateway.yaml:ro,Z" "$IMAGE" "${cmd[@]}")
    wait_ready "http://$HOST:$PORT/hello" 120 "$(podman inspect --format '{{.State.Pid}}' "$container")" || { podman logs "$container" >"$OUT/$label.log" 2>&1; log "the container did not answer"; exit 1; }
    sleep 2
    gateway_pid=$(podman inspect --format '{{.State.Pid}}' "$container")
    tr '\0' ' ' <"/proc/$gateway_pid/cmdline" >"$OUT/$label.cmdline"
    CGROUP=/sys/fs/cgroup$(sed -n 's/^0:://p' "/proc/$gateway_pid/cgroup")            # v2
    [[ -f $CGROUP/memory.current ]] ||
        CGROUP=/sys/fs/cgroup/memory$(sed -n 's/^[0-9]*:memory://p' "/proc/$gateway_pid/cgroup")   # v1
    podman logs "$container" >"$OUT/$label.start.log" 2>&1   # the gateway's lines on the AOT cache and the transport
    phases "$gateway_pid" "$label"
    gateway_pid=""
    if kill -0 "$(podman inspect --format '{{.State.Pid}}' "$container")" 2>/dev/null; then
        { echo "limit $(cat "$CGROUP/memory.max" "$CGROUP/memory.limit_in_bytes" 2>/dev/null)$(cgroup_now)"
          cat "$CGROUP/memory.events" "$CGROUP/memory.failcnt" "$CGROUP/memory.oom_control" 2>/dev/null || true
        } | tee "$OUT/$label.cgroup.txt" >&2
        cp "$CGROUP/memory.stat" "$OUT/$label.memory.stat" 2>/dev/null || true
        podman --runtime runc stop -t 20 "$container" >/dev/null
    else
        log "the container's JVM is gone before the end (see the kernel's log for an OOM kill: dmesg | grep -i oom)"
    fi
    echo "exit $(podman inspect --format '{{.State.ExitCode}} oomkilled={{.State.OOMKilled}}' "$container")" |
        tee -a "$OUT/$label.cgroup.txt" >&2
    echo "OOM kills by the kernel during the run: $(($(dmesg 2>/dev/null | grep -c 'Killed process' || true) - kills0))" |
        tee -a "$OUT/$label.cgroup.txt" >&2
    podman logs "$container" >"$OUT/$label.log" 2>&1
    podman --runtime runc rm -f "$container" >/dev/null 2>&1 || true
    container=""
}

log "building the harness's origin and W3 client into $BIN"
(cd "$SHARED/backend" && go build -o "$BIN/backend" .)
(cd "$SHARED/holdconns" && go build -o "$BIN/holdconns" .)
$LOAD "$BIN/backend" -addr "$HOST:$ORIGIN_PORT" -latency 100ms >"$OUT/origin.log" 2>&1 &
origin_pid=$!
wait_ready "http://$HOST:$ORIGIN_PORT/hello" 20 "$origin_pid" || { log "origin did not start"; exit 1; }
config
{ echo "# $(date -u +%FT%TZ) mode $MODE on $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
  "$JDK/bin/java" -version 2>&1 | sed -n 2p; } >"$OUT/env.txt"
log "results in $OUT"

case $MODE in
    nmt)
        start_launcher "-XX:NativeMemoryTracking=summary" launcher
        phases "$gateway_pid" launcher
        stop_gateway ;;
    gc)
        for ((r = 1; r <= ROUNDS; r++)); do
            for gc in $GCS; do
                case $gc in serial) f=-XX:+UseSerialGC ;; g1) f=-XX:+UseG1GC ;; parallel) f=-XX:+UseParallelGC ;;
                    *) f=${gc//,/ } ;; esac   # or JVM options, comma-separated: -XX:+UseSerialGC,-Xms32m
                label=$(tr -c 'A-Za-z0-9=+\n-' _ <<<"$gc").r$r
                start_launcher "$f" "$label"
                phases "$gateway_pid" "$label"
                stop_gateway
            done
        done ;;
    w3)
        for ((r = 1; r <= ROUNDS; r++)); do
            for v in ${VARIANTS:-default}; do
                f=""; [[ $v != default ]] && f=${v//,/ }
                label=$(tr -c 'A-Za-z0-9=+\n-' _ <<<"$v").r$r
                start_launcher "$f -Xlog:gc:file=$OUT/$label.gc.txt" "$label"
                w3_only "$gateway_pid" "$label"
                stop_gateway
            done
        done ;;
    container)
        if [[ -z ${TRANSPORTS:-} ]]; then
            run_container "container-$MEMORY" ""
        else   # ROUNDS x TRANSPORTS interleaved, each a fresh container: A, B, A, B
            for ((r = 1; r <= ROUNDS; r++)); do
                for t in $TRANSPORTS; do run_container "container-$MEMORY-$t.r$r" "$t"; done
            done
        fi ;;
    *) echo "usage: $0 nmt|gc|container" >&2; exit 2 ;;
esac
log "done: $OUT/summary.tsv"
