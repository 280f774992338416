#!/usr/bin/env bash
# W3 on each transport in the image under 256 MiB: what 10,000 idle keep-alive connections hold, counted by the JVM
# (GC.heap_info, a class histogram of all objects and a live one while held).
# Usage: OUT=dir w3histo.sh jdk epoll epoll@localhost/loomgate:other ... (IMAGE= the default image)
set -euo pipefail
JDK=/usr/lib/jvm/temurin-25-jdk-amd64 IMAGE=${IMAGE:-localhost/loomgate:imageepoll}
WORK=/tmp/ie-memory HOST=127.0.0.1 PORT=24081 ADMIN_PORT=24901 TOKEN=bench-token-0123456789abcdef0123456789
OUT=${OUT:?}; mkdir -p "$OUT"
ulimit -n "$(ulimit -Hn)"
"$WORK/bin/backend" -addr "$HOST:24080" -latency 100ms >"$OUT/origin.log" 2>&1 & origin=$!
trap 'kill $origin 2>/dev/null; [[ -n ${c:-} ]] && podman --runtime runc rm -f -t 5 $c >/dev/null 2>&1' EXIT
sleep 1
n=0
for arg in "$@"; do   # TRANSPORT or TRANSPORT@IMAGE
  t=${arg%%@*} img=$IMAGE; [[ $arg == *@* ]] && img=${arg#*@}
  n=$((n + 1)); L=$t.$n; [[ $img != "$IMAGE" ]] && L=$t-${img##*:}.$n
  c=$(podman --runtime runc run -d --network host --memory 256m --memory-swap 256m --cpuset-cpus 0 \
      --ulimit nofile=20000:20000 --ulimit nproc=4096:4096 -e LOOMGATE_ADMIN_TOKEN=$TOKEN ${JTO:+-e JAVA_TOOL_OPTIONS=$JTO} \
      -v "$WORK/gateway.yaml:/etc/loomgate/gateway.yaml:ro,Z" "$img" serve --config /etc/loomgate/gateway.yaml --transport "$t" 2>/dev/null)
  deadline=$((SECONDS + 120))
  until [[ $(curl -s -o /dev/null -m 2 -w '%{http_code}' http://$HOST:$PORT/hello) == 200 ]] || ((SECONDS > deadline)); do sleep 0.2; done
  pid=$(podman inspect --format '{{.State.Pid}}' "$c")
  taskset -c 1 wrk -t1 -c256 -d10s http://$HOST:$PORT/hello >"$OUT/$L.warm.txt" 2>&1 || true
  sleep 3
  { echo "# $L before: $(grep -E '^(Rss|Anonymous):' /proc/$pid/smaps_rollup | tr -s ' ' | tr '\n' ' ') threads $(awk '/^Threads/{print $2}' /proc/$pid/status) load $(cut -d' ' -f1-3 /proc/loadavg)"
    $JDK/bin/jcmd $pid GC.heap_info | sed 1d; } >"$OUT/$L.before.txt" 2>&1
  $JDK/bin/jcmd $pid GC.class_histogram >"$OUT/$L.histo-before.txt" 2>&1
  timeout 150 taskset -c 1 "$WORK/bin/holdconns" -addr "$HOST:$PORT" -n 10000 -hold 25s >"$OUT/$L.holdconns.txt" 2>&1 & h=$!
  deadline=$((SECONDS + 90))
  until grep -q '^READY' "$OUT/$L.holdconns.txt" || ((SECONDS > deadline)); do sleep 0.2; done
  sleep 3
  { echo "# $L held: $(grep -E '^(Rss|Anonymous):' /proc/$pid/smaps_rollup | tr -s ' ' | tr '\n' ' ') threads $(awk '/^Threads/{print $2}' /proc/$pid/status) load $(cut -d' ' -f1-3 /proc/loadavg)"
    $JDK/bin/jcmd $pid GC.heap_info | sed 1d; } >"$OUT/$L.held.txt" 2>&1
  $JDK/bin/jcmd $pid GC.class_histogram -all >"$OUT/$L.histo-held-all.txt" 2>&1
  $JDK/bin/jcmd $pid GC.class_histogram >"$OUT/$L.histo-held.txt" 2>&1
  echo "# $L after the live histogram (a full GC): $(grep -E '^(Rss|Anonymous):' /proc/$pid/smaps_rollup | tr -s ' ' | tr '\n' ' ')" >>"$OUT/$L.held.txt"
  wait $h || true
  podman logs "$c" >"$OUT/$L.log" 2>&1
  podman --runtime runc rm -f -t 5 "$c" >/dev/null 2>&1; c=""
  head -1 "$OUT/$L.before.txt"; head -1 "$OUT/$L.held.txt"; tail -1 "$OUT/$L.held.txt"; tail -1 "$OUT/$L.holdconns.txt"
done
