#!/usr/bin/env bash
# Soak: mixed traffic through two gateways (plain: HTTP/1.1 + h2c; TLS: HTTP/1.1 + h2 by ALPN) for DURATION
# seconds while the config is reloaded every RELOAD_EVERY s, the "flaky" origin is killed and restarted every
# KILL_EVERY s, and redis-server (the rate limit's store) is stopped for REDIS_DOWN s every REDIS_EVERY s.
# Every RSS_EVERY s it samples each gateway's RSS, heap in use (jcmd GC.heap_info), threads, descriptors and
# connections; at the end it reports client-visible errors by cause (explained by a fault window or not), the RSS
# growth after warm-up, and what is left open once the traffic stopped. Not in CI; all traffic on 127.0.0.1.
#
#   DURATION=1200 bench/soak/run.sh          # the 20-minute soak (the default)
#   DURATION=180 bench/soak/run.sh           # a quick proof that it works
#   TRANSPORT=epoll DURATION=600 bench/soak/run.sh   # both gateways on server.transport: epoll (issue 40)
#
# Needs: the built jar (./loomgate build), JDK 21+ (jcmd), curl, h2load (nghttp2-client), redis-server, openssl,
# ss (iproute2). Output and logs in WORK (default /tmp/loomgate-soak); exit 1 when an error no fault explains was
# seen, or something leaked.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DURATION=${DURATION:-1200}
RELOAD_EVERY=${RELOAD_EVERY:-10}
KILL_EVERY=${KILL_EVERY:-60}
REDIS_EVERY=${REDIS_EVERY:-300}
REDIS_DOWN=${REDIS_DOWN:-30}
RSS_EVERY=${RSS_EVERY:-30}
GRACE=${GRACE:-3}            # seconds after a fault ends during which its errors are still explained by it
WORK=${WORK:-/tmp/loomgate-soak}
JAR=${JAR:-$ROOT/loomgate-cli/target/loomgate.jar}
JAVA_HOME=${JAVA_HOME:-$(ls -d /usr/lib/jvm/*25* 2>/dev/null | head -1)}
JAVA=$JAVA_HOME/bin/java
JCMD=$JAVA_HOME/bin/jcmd
HEAP=${HEAP:-256m}
TRANSPORT=${TRANSPORT:-jdk}  # server.transport of both gateways (jdk, epoll, auto): listener and origin connections
P_PLAIN=19180 P_TLS=19443 A_PLAIN=19901 A_TLS=19902 O_FLAKY=19181 O_STEADY=19182 P_REDIS=19179

for tool in curl h2load redis-server redis-cli openssl ss "$JCMD"; do
    command -v "$tool" > /dev/null || { echo "soak: $tool is missing" >&2; exit 2; }
done
[[ -f $JAR ]] || { echo "soak: $JAR is missing: run ./loomgate build" >&2; exit 2; }
rm -rf "$WORK" && mkdir -p "$WORK"/{cfg,out,pki}
cd "$WORK"
EVENTS=$WORK/out/events.tsv      # start end kind: the fault windows
CURLS=$WORK/out/curl.tsv         # time protocol shape http_code curl_exit verdict route
SAMPLES=$WORK/out/samples.tsv
: > "$EVENTS"; : > "$CURLS"
printf 'time\tgateway\trss_kb\theap_used_kb\tthreads\tfds\tclient_conns\tupstream_conns\tvirtual_alive\n' > "$SAMPLES"

pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    [[ -f $WORK/out/flaky.pid ]] && kill "$(cat "$WORK/out/flaky.pid")" 2>/dev/null || true
    redis-cli -p $P_REDIS shutdown nosave > /dev/null 2>&1 || true
    wait 2>/dev/null || true
}
trap cleanup EXIT
now() { date +%s; }
await_http() { # url [curl args]: polls up to 30 s
    local url=$1; shift
    for _ in $(seq 150); do curl -s -o /dev/null "$@" "$url" && return 0; sleep 0.2; done
    echo "soak: $url did not answer" >&2; exit 1
}

# --- certificates, origins, redis
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout pki/ca.key -out pki/ca.crt \
    -subj /CN=soak-ca -days 2 -addext basicConstraints=critical,CA:true 2> /dev/null
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout pki/gw.key -out pki/gw.csr \
    -subj /CN=localhost 2> /dev/null
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' > pki/ext
openssl x509 -req -in pki/gw.csr -CA pki/ca.crt -CAkey pki/ca.key -set_serial 1 -days 2 -extfile pki/ext \
    -out pki/gw.crt 2> /dev/null
dd if=/dev/urandom of=body-1m bs=1M count=1 status=none
dd if=/dev/urandom of=body-8m bs=1M count=8 status=none
dd if=/dev/urandom of=body-64k bs=64K count=1 status=none

start_flaky() {
    "$JAVA" -Xmx128m -jar "$JAR" backend --port $O_FLAKY --latency 5ms >> out/origin-flaky.log 2>&1 &
    echo $! > out/flaky.pid
}
start_flaky
"$JAVA" -Xmx256m -jar "$JAR" backend --port $O_STEADY --latency 5ms > out/origin-steady.log 2>&1 &
pids+=($!)
redis-server --port $P_REDIS --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
    --logfile "$WORK/out/redis.log" > /dev/null
await_http http://127.0.0.1:$O_FLAKY/hello
await_http http://127.0.0.1:$O_STEADY/hello

# --- the gateways: every feature of the matrix on at once
write_config() { # name port admin_port generation [tls]
    local f=cfg/$1.yaml.tmp
    {
        printf 'server:\n  address: 127.0.0.1\n  port: %s\n  transport: %s\n' "$2" "$TRANSPORT"
        [[ ${5:-} == tls ]] && printf '  ssl:\n    certificate: %s\n    certificate-private-key: %s\n' \
            "$WORK/pki/gw.crt" "$WORK/pki/gw.key"
        cat <<EOF
admin:
  port: $3
access-log:
  enabled: true
  format: json
redis:
  url: redis://127.0.0.1:$P_REDIS
  timeout: 100ms
routes:
  - id: steady
    uri: http://127.0.0.1:$O_STEADY
    predicates: [ "Path=/steady/**" ]
    filters:
      - StripPrefix=1
      - AddResponseHeader=X-Soak-Generation, $4
  - id: flaky
    uri: http://127.0.0.1:$O_FLAKY
    predicates: [ "Path=/flaky/**" ]
    filters:
      - StripPrefix=1
      - name: Retry
        args: { retries: 2, methods: "GET,POST", exceptions: IOException, max-replay-size: 1MB }
  - id: limited
    uri: http://127.0.0.1:$O_STEADY
    predicates: [ "Path=/limited/**" ]
    filters:
      - StripPrefix=1
      - name: RequestRateLimiter
        args: { replenish-rate: 100000, burst-capacity: 100000, key-resolver: route, store: redis }
EOF
    } > "$f"
    mv "$f" "cfg/$1.yaml" # a rename, as a deploy tool writes it: the watcher never sees half a file
}
write_config plain $P_PLAIN $A_PLAIN 0
write_config tls $P_TLS $A_TLS 0 tls
declare -A GW
for gw in plain tls; do
    "$JAVA" -Xmx$HEAP -XX:+UseSerialGC -jar "$JAR" serve --config cfg/$gw.yaml > out/gw-$gw.log 2>&1 &
    GW[$gw]=$!
    pids+=($!)
done
await_http http://127.0.0.1:$P_PLAIN/steady/hello
await_http https://127.0.0.1:$P_TLS/steady/hello --cacert pki/ca.crt
T0=$(now)
END=$((T0 + DURATION))
echo "soak: ${DURATION}s from $(date -d @"$T0" +%T), gateways pid ${GW[plain]} (plain :$P_PLAIN) and ${GW[tls]} (TLS :$P_TLS); output in $WORK/out"

# --- faults
( gen=0
  while (( $(now) + RELOAD_EVERY < END )); do
      sleep "$RELOAD_EVERY"; gen=$((gen + 1))
      write_config plain $P_PLAIN $A_PLAIN $gen
      write_config tls $P_TLS $A_TLS $gen tls
  done
  echo "$gen" > out/reloads ) &
pids+=($!)
( while (( $(now) + KILL_EVERY < END )); do
      sleep "$KILL_EVERY"
      t=$(now)
      kill -9 "$(cat out/flaky.pid)" 2> /dev/null || true # by its pid: the one this script started
      sleep 2
      start_flaky
      for _ in $(seq 150); do curl -s -o /dev/null http://127.0.0.1:$O_FLAKY/hello && break; sleep 0.2; done
      printf '%s\t%s\torigin-killed\n' "$t" "$(now)" >> "$EVENTS"
  done ) &
pids+=($!)
( first=$(( REDIS_EVERY < DURATION / 2 ? REDIS_EVERY : DURATION / 3 ))
  sleep "$first"
  while (( $(now) + REDIS_DOWN < END )); do
      t=$(now)
      redis-cli -p $P_REDIS shutdown nosave > /dev/null 2>&1 || true
      sleep "$REDIS_DOWN"
      redis-server --port $P_REDIS --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
          --logfile "$WORK/out/redis.log" > /dev/null
      printf '%s\t%s\tredis-down\n' "$t" "$(now)" >> "$EVENTS"
      sleep "$REDIS_EVERY"
  done ) &
pids+=($!)

# --- samples of each gateway
sample() {
    local gw pid port rss heap thr fds cc uc va
    for gw in plain tls; do
        pid=${GW[$gw]}
        port=$([[ $gw == plain ]] && echo $P_PLAIN || echo $P_TLS)
        rss=$(awk '/VmRSS/ { print $2 }' /proc/"$pid"/status)
        thr=$(awk '/Threads/ { print $2 }' /proc/"$pid"/status)
        heap=$("$JCMD" "$pid" GC.heap_info 2> /dev/null | sed -n 's/.*total [0-9]*K, used \([0-9]*\)K.*/\1/p' \
            | awk '{ s += $1 } END { print s + 0 }')
        fds=$(ls /proc/"$pid"/fd | wc -l)
        cc=$(ss -Htn state established "( sport = :$port )" | wc -l)
        uc=$(ss -Htnp state established "( dport = :$O_FLAKY or dport = :$O_STEADY )" | grep -c "pid=$pid," || true)
        va=$(curl -s "http://127.0.0.1:$([[ $gw == plain ]] && echo $A_PLAIN || echo $A_TLS)/api/stats" \
            | sed -n 's/.*"virtualAlive" *: *\([0-9]*\).*/\1/p')
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(( $(now) - T0 ))" "$gw" "$rss" "$heap" "$thr" "$fds" "$cc" \
            "$uc" "${va:--}" >> "$SAMPLES"
    done
}
( while (( $(now) < END )); do sample; sleep "$RSS_EVERY"; done ) &
pids+=($!)

# --- traffic
LOAD=("$JAVA" -Xmx128m -jar "$JAR" load --json --progress never)
"${LOAD[@]}" -c 16 -R 150 -d "${DURATION}s" http://127.0.0.1:$P_PLAIN/steady/hello > out/load-h1-steady.json 2>&1 &
load_pids=($!)
"${LOAD[@]}" -c 4 -R 50 -d "${DURATION}s" http://127.0.0.1:$P_PLAIN/limited/hello > out/load-h1-limited.json 2>&1 &
load_pids+=($!)
"${LOAD[@]}" -c 4 -R 50 -d "${DURATION}s" http://127.0.0.1:$P_PLAIN/flaky/hello > out/load-h1-flaky.json 2>&1 &
load_pids+=($!)
h2load -D "$DURATION" -c 4 -m 8 --rps 25 http://127.0.0.1:$P_PLAIN/steady/hello > out/h2load-h2c.txt 2>&1 &
load_pids+=($!)
h2load -D "$DURATION" -c 4 -m 8 --rps 25 https://127.0.0.1:$P_TLS/limited/hello > out/h2load-h2tls.txt 2>&1 &
load_pids+=($!)
pids+=("${load_pids[@]}")

# The matrix's shapes over new connections, each checked byte for byte: a worker picks the next shape in turn.
shapes=(
    "h1 upload-1m-length http://127.0.0.1:$P_PLAIN/steady/echo --http1.1 --data-binary @body-1m"
    "h1tls upload-8m-length https://127.0.0.1:$P_TLS/steady/echo --http1.1 --data-binary @body-8m"
    "h1 upload-8m-chunked http://127.0.0.1:$P_PLAIN/steady/echo --http1.1 -H Transfer-Encoding:chunked --data-binary @body-8m"
    "h2c upload-8m-nolength http://127.0.0.1:$P_PLAIN/steady/echo --http2-prior-knowledge -T body-8m -X POST"
    "h2tls upload-1m-length https://127.0.0.1:$P_TLS/limited/echo --http2 --data-binary @body-1m"
    "h2tls download-8m https://127.0.0.1:$P_TLS/steady/bytes/8388608 --http2"
    "h1tls download-8m https://127.0.0.1:$P_TLS/steady/bytes/8388608 --http1.1"
    "h1 flaky-64k http://127.0.0.1:$P_PLAIN/flaky/echo --http1.1 --data-binary @body-64k"
    "h2c flaky-64k http://127.0.0.1:$P_PLAIN/flaky/echo --http2-prior-knowledge --data-binary @body-64k"
    "h1tls drip-64k https://127.0.0.1:$P_TLS/steady/echo --http1.1 --limit-rate 128k --data-binary @body-64k"
)
shape_worker() { # worker-number
    local i=$1 n=${#shapes[@]} out code rc want got file verdict t
    while (( $(now) < END )); do
        read -r proto name url args <<< "${shapes[$((i % n))]}"
        i=$((i + 2))
        t=$(now)
        out=$WORK/out/body.$1
        # shellcheck disable=SC2086
        code=$(curl -sS --max-time 60 --cacert "$WORK/pki/ca.crt" -H Expect: -o "$out" -w '%{http_code}' $args "$url" \
            2>> "$WORK/out/curl-errors.log") && rc=0 || rc=$?
        file=$(sed -n 's/.*@\(body-[0-9a-z]*\).*/\1/p; s/.*-T \(body-[0-9a-z]*\).*/\1/p' <<< "$args" | head -1)
        if [[ $name == download-8m ]]; then
            want=8388608; got=$(stat -c %s "$out" 2>/dev/null || echo 0)
        else
            want=$(sha256sum < "$WORK/$file" | cut -c1-64); got=$(sha256sum < "$out" | cut -c1-64)
        fi
        if [[ $rc == 0 && $code == 200 && $want == "$got" ]]; then verdict=ok
        elif [[ $rc == 0 && $code == 200 ]]; then verdict=corrupt
        else verdict=error
        fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$proto" "$name" "$code" "$rc" "$verdict" \
            "$(cut -d/ -f4 <<< "$url")" >> "$CURLS"
    done
}
shape_worker 0 & pids+=($!)
shape_worker 1 & pids+=($!)

# --- wait, then report
sleep $((END - $(now) + 2))
for p in "${load_pids[@]}"; do wait "$p" || true; done
sleep 5 # the traffic has stopped: idle connections and the threads serving them should be going
sample

echo
echo "== client-visible errors by cause"
awk -F'\t' -v grace="$GRACE" '
    FNR == NR { s[NR] = $1; e[NR] = $2 + grace; k[NR] = $3; nw = NR; next }
    { total[$2 " " $3]++
      if ($6 == "ok") next
      cause = "unexplained"
      # a fault explains errors only on the route it hits: the kills /flaky, the Redis outage /limited
      for (w = 1; w <= nw; w++) if ($1 >= s[w] && $1 <= e[w] && ((k[w] == "origin-killed" && $7 == "flaky") \
                                                               || (k[w] == "redis-down" && $7 == "limited"))) cause = k[w]
      bad[$2 " " $3 " (/" $7 ") " $6 " http=" $4 " curl=" $5 " -> " cause]++
      if (cause == "unexplained") unexplained++ }
    END {
      for (x in total) printf "  curl %-26s %5d exchanges\n", x, total[x]
      for (x in bad) printf "  ERROR %s: %d\n", x, bad[x]
      printf "  curl errors no fault explains: %d\n", unexplained + 0
      print unexplained + 0 > "'"$WORK/out/unexplained"'" }' "$EVENTS" "$CURLS"
for f in out/load-*.json; do
    printf '  %-28s %s\n' "$(basename "$f" .json)" "$(tr -d '\n' < "$f" | grep -o '"requests":[0-9]*\|"errors":{[^}]*}\|"errors":[0-9]*\|"status[^}]*}' | tr '\n' ' ')"
done
for f in out/h2load-*.txt; do
    printf '  %-28s %s | %s\n' "$(basename "$f" .txt)" "$(grep -m1 '^requests:' "$f")" "$(grep -m1 '^status codes:' "$f")"
done
echo "  fault windows: $(awk -F'\t' '{ c[$3]++ } END { for (k in c) printf "%s x%d  ", k, c[k] }' "$EVENTS")reloads x$(cat out/reloads 2>/dev/null || echo '?')"
for gw in plain tls; do
    echo "  reloads applied ($gw): $(grep -c 'config reloaded' out/gw-$gw.log || true), failed: $(grep -ci 'reload.*failed\|reload.*refused' out/gw-$gw.log || true)"
done

echo
echo "== gateway samples (every ${RSS_EVERY}s; the last one 5 s after the traffic stopped)"
column -t -s $'\t' "$SAMPLES"
echo
echo "== after warm-up (from a third of the run): RSS and live heap growth, what is left once idle"
leak=0
for gw in plain tls; do
    awk -F'\t' -v gw=$gw -v from=$((DURATION / 3)) '
        $2 == gw && $1 >= from && !base { base = $3; hbase = $4 }
        $2 == gw && $1 >= from { last = $3; hlast = $4; fds = $6; cc = $7; va = $9; thr = $5 }
        END { printf "  %-5s RSS %d -> %d MB (%+.1f%%), live heap %d -> %d MB, idle: %s client conns, %s virtual threads, %s threads, %s fds\n",
              gw, base / 1024, last / 1024, base ? (last - base) * 100 / base : 0, hbase / 1024, hlast / 1024, cc, va, thr, fds }' "$SAMPLES"
    idle_cc=$(ss -Htn state established "( sport = :$([[ $gw == plain ]] && echo $P_PLAIN || echo $P_TLS) )" | wc -l)
    (( idle_cc > 0 )) && { echo "  $gw: $idle_cc client connections still open after the traffic stopped"; leak=1; }
    "$JCMD" "${GW[$gw]}" Thread.print > "out/threads-$gw.txt" 2>&1 || true
    echo "  $gw: thread dump in out/threads-$gw.txt ($(grep -c '^"' "out/threads-$gw.txt") platform threads)"
done
u=$(cat out/unexplained)
if (( u > 0 || leak > 0 )); then
    echo "soak: FAILED ($u unexplained errors, leak=$leak)"; exit 1
fi
echo "soak: passed"
