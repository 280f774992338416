#!/usr/bin/env bash
# origin-fields.sh: what the forwarding fields the gateway adds cost the harness's Go origin, alone (no proxy): wrk
# straight to the origin, /hello, 64 keep-alive connections, 10 s, the origin on core 1 and wrk on core 0, niced;
# with the Host field alone (what HAProxy's harness config forwards) and with the fields a Loomgate request carries
# (X-Forwarded-For/-Proto/-Host/-Port, Forwarded, Via, traceparent), alternated ROUNDS times. Prints the origin's
# CPU µs per request (its /proc ticks over the window). Port 27180.
set -uo pipefail
nice taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:27180 -latency 100ms > /dev/null 2>&1 & BP=$!
trap 'kill $BP 2>/dev/null' EXIT
for _ in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:27180/hello && break; sleep 0.2; done
bt() { awk '{ print $14 + $15 }' /proc/$BP/stat; }
FIELDS=(-H 'X-Forwarded-For: 127.0.0.1' -H 'X-Forwarded-Proto: https' -H 'X-Forwarded-Host: 127.0.0.1:18081'
    -H 'X-Forwarded-Port: 18081' -H 'Forwarded: for=127.0.0.1;host="127.0.0.1:18081";proto=https'
    -H 'Via: 1.1 loomgate' -H 'traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')
run() { # label wrk-args...
    local label=$1 b0 b1 out n
    shift
    nice taskset -c 0 wrk -t1 -c64 -d3s "$@" http://127.0.0.1:27180/hello > /dev/null 2>&1
    b0=$(bt)
    out=$(nice taskset -c 0 wrk -t1 -c64 -d10s "$@" http://127.0.0.1:27180/hello 2>&1)
    b1=$(bt)
    n=$(awk '/requests in/ { print $1 }' <<< "$out")
    awk -v l="$label" -v n="$n" -v b=$((b1 - b0)) -v load="$(cut -d' ' -f1 /proc/loadavg)" \
        'BEGIN { printf "%-16s %7d req  origin %.2f us/req  load %s\n", l, n, b * 10000 / n, load }'
}
for ((r = 1; r <= ${ROUNDS:-2}; r++)); do
    run "Host only" 
    run "Loomgate's fields" "${FIELDS[@]}"
done
