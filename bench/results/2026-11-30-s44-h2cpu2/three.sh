#!/usr/bin/env bash
# three.sh SHAPE ROUNDS: bench/syscalls/run.sh for main (A), HAProxy and the branch (B) in turn, the order
# reversed every other round (A H B, B H A, ...), one proxy per run, on ports 23081 -> 23080 (admin 23901).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd "$HERE/../../.." && pwd)
SHAPE=$1; ROUNDS=${2:-2}
export GW_PORT=23081 ORIGIN_PORT=23080 ADMIN_PORT=23901 SHARED=/work/shared/bench
for r in $(seq "$ROUNDS"); do
    if ((r % 2)); then order="A H B"; else order="B H A"; fi
    for side in $order; do
        case $side in A) p=loomgate jar=${A:-/tmp/h2cpu2/base.jar} ;; B) p=loomgate jar=${B:-/tmp/h2cpu2/drain.jar} ;; H) p=haproxy jar=x ;; esac
        echo "== round $r side $side $(date -u +%H:%M:%S) uptime: $(uptime | sed 's/.*load/load/')"
        PROXIES=$p ROUNDS=1 JAR=$jar nice -n 5 "$ROOT/bench/syscalls/run.sh" "$SHAPE" 2>&1 | grep -v '^$'
    done
done
