#!/usr/bin/env bash
# Start-up and warm-up of the gateway with each AOT cache and without: per round, each way in turn (alternated),
# the time from exec to the first proxied 200 (bench/startup/ttfr.py's loop), then requests/s in consecutive 1 s wrk
# samples (32 connections, /hello through the route) for SECS seconds.
#   warm.sh ROUNDS SECS way=cachefile ...   (way "none" has no cache)
set -u
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
D=/tmp/aotexp
ROUNDS=$1 SECS=$2; shift 2
PORT=24381 OPORT=24380
FLAGS=(-Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -XX:FlightRecorderOptions=memorysize=2m -XX:+ExitOnOutOfMemoryError)
cat >$D/warm.yaml <<YAML
server: { address: 127.0.0.1, port: $PORT }
admin: { port: 0 }
access-log: { enabled: false }
routes:
  - { id: origin, uri: "http://127.0.0.1:$OPORT", predicates: [ "Path=/**" ] }
YAML
$J -jar $D/full.jar backend --port $OPORT >$D/origin.log 2>&1 &
origin=$!
trap 'kill $origin 2>/dev/null' EXIT
sleep 3
echo "# $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= ROUNDS; r++)); do
  for spec in "$@"; do
    way=${spec%%=*} cache=${spec#*=}
    extra=()
    [[ $way != none ]] && extra=(-XX:AOTCache=$cache -XX:AOTMode=on -Xlog:aot=off)
    t0=$(date +%s%N)
    $J "${FLAGS[@]}" "${extra[@]}" -jar $D/gw.jar serve --config $D/warm.yaml --no-watch >$D/warm-$way.log 2>&1 &
    gw=$!
    ms=failed
    while (( ($(date +%s%N) - t0) / 1000000 < 60000 )); do
      if curl -s -o /dev/null -w '%{http_code}' --max-time 5 http://127.0.0.1:$PORT/hello 2>/dev/null | grep -q 200; then
        ms=$(( ($(date +%s%N) - t0) / 1000000 )); break
      fi
      kill -0 $gw 2>/dev/null || break
      sleep 0.005
    done
    rps=""
    for ((s = 0; s < SECS; s++)); do
      rps+=" $(wrk -t1 -c32 -d1s http://127.0.0.1:$PORT/hello 2>/dev/null | awk '/^Requests\/sec/ {printf "%.0f", $2}')"
    done
    kill -TERM $gw; wait $gw 2>/dev/null
    echo "round $r $way ttfr_ms $ms rps$rps"
  done
done
echo "# load after $(cut -d' ' -f1-3 /proc/loadavg)"
