#!/usr/bin/env bash
# burst-run.sh NAME PORT [tls] [extra serve args]: start a fresh gateway with the launcher, burst it as soon as it
# listens, then read /pinned and the log's WARN/ERROR lines; stops the gateway it started (by PID).
set -u
name=$1; port=$2; mode=${3:-plain}; shift 3 || true
H=$(cd "$(dirname "$0")" && pwd); cd "$H/../../../.."
log=/tmp/combo7-burst-$name-$(date +%H%M%S).log; echo "log $log"
JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 ./loomgate serve --config "$H/burst-$name.yaml" "$@" > $log 2>&1 &
pid=$!
for i in $(seq 1 200); do grep -q "listening on" $log && break; sleep 0.05; done
python3 "$H/burst.py" $port $mode 10
echo "--- /pinned"; curl -s http://127.0.0.1:$((port+1))/pinned | python3 -c "
import json,sys; d=json.load(sys.stdin); print('total',d['total'])
for e in d['recent']: print(e['durationMillis'], e['thread'], e['reason'], e['frames'][:4])"
echo "--- metrics"; curl -s http://127.0.0.1:$((port+1))/metrics | grep -E "^loomgate_client_tls_handshakes_failed_total|^loomgate_pinned_events_total|^loomgate_exchange_failures_total"
echo "--- WARN/ERROR"; grep -a " WARN \| ERROR \|\"log.level\":\"\(WARN\|ERROR\)\"" $log | grep -v "SIGINT is ignored" | cut -c1-400
echo "--- INFO PinnedEvent"; grep -a "PinnedEvent" $log | cut -c1-400
kill $pid; for i in $(seq 1 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done; kill -0 $pid 2>/dev/null && echo "gateway $pid still alive"
