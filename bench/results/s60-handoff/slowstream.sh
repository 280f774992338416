#!/usr/bin/env bash
# Session 60 (handoff): system calls per request on the path the change touches, the hand-off loop of an h2c
# connection that may park while a stream is answered: h2load -c50 -m1 to an origin answering in 1.5 s, longer than
# the hand-off delay (1 s), so no connection is busy and each stream's reader waits in awaitOrPark's timed steps.
# Base and head jars alternated; perf counts in the kernel. Ports 29582 (origin), 29583 (gateway), 29592 (admin).
set -euo pipefail
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
T=/tmp/handoff-slow
cat > $T/gw.yaml <<YAML
server:
  address: 127.0.0.1
  port: 29583
  max-connections: 10000
  http2:
    enabled: true
    max-concurrent-streams: 100
admin:
  port: 29592
access-log:
  enabled: false
routes:
  - id: origin
    uri: http://127.0.0.1:29582
    predicates: [ "Path=/**" ]
YAML
taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:29582 -latency 1500ms > $T/origin.log 2>&1 &
origin=$!
trap 'kill $origin 2>/dev/null || true' EXIT
events=syscalls:sys_enter_futex,syscalls:sys_enter_epoll_ctl,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_read,syscalls:sys_enter_write,context-switches
for jar in ${ORDER:-base head base head}; do
    nice taskset -c 0 $JAVA -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -jar /tmp/handoff-$jar.jar serve \
        --config $T/gw.yaml > $T/gw-$jar.log 2>&1 &
    gw=$!
    for i in $(seq 1 300); do
        curl -s -o /dev/null --http2-prior-knowledge http://127.0.0.1:29583/hello && break
        sleep 0.1
    done
    nice taskset -c 1 h2load -t1 -c50 -m1 -D20 http://127.0.0.1:29583/api/data > /dev/null 2>&1 || true # warm
    perf stat -x, -e $events -p $gw -o $T/perf-$jar.txt &
    perfpid=$!
    h2=$(nice taskset -c 1 h2load -t1 -c50 -m1 -D30 http://127.0.0.1:29583/api/data 2>&1 || true)
    kill -INT $perfpid; wait $perfpid 2>/dev/null || true
    kill $gw; wait $gw 2>/dev/null || true
    reqs=$(echo "$h2" | awk '/^requests:/ { print $8 }')
    echo "== $jar $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg): $(echo "$h2" | grep -E '^requests:|^status codes:' | tr '\n' ' ')"
    awk -F, -v n="$reqs" '$1 ~ /^[0-9]+$/ { sub("syscalls:sys_enter_", "", $3); printf "  %s %.3f/req", $3, $1 / n } END { print "" }' $T/perf-$jar.txt
done
