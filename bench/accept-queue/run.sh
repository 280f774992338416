#!/bin/bash
# The accept-queue model of docs/performance.md (issue 15, W1 at 10,000): 3,000 clients connect at once, as wrk
# does, to a listener that either accepts at a bounded rate behind a short queue (as one at its connection limit
# does) or accepts at once; prints how many answers took 5 s or more from their request (wrk's "timeouts").
# Usage: bench/accept-queue/run.sh [PORT]   (listener on core 0, clients on core 1)
set -u
cd "$(dirname "$0")"
port=${1:-27112}
ulimit -n 20000 2>/dev/null
for cfg in "128 1.0 1000 1" "128 1.0 1000 64" "4096 0 100000 1"; do
    taskset -c 0 python3 server.py "$port" $cfg & sp=$!
    sleep 0.5
    echo "backlog/first accept after s/accepts per s/batch $cfg: $(taskset -c 1 python3 client.py "$port" 3000 20)"
    kill "$sp"; wait "$sp" 2>/dev/null
done
