#!/usr/bin/env bash
# abx.sh SHAPE A.jar B.jar: bench/ab's order (A B, B A, A B, ...) over bench/syscalls/run.sh, keeping each run's
# whole output (user and kernel CPU per request, system calls per request) instead of bench/ab's summary. On ports
# of its own (23081 -> 23080, admin 23901: below the ephemeral range, where an origin port can be taken by a self-connected dial) beside the harness. PROXY (loomgate, loomgate-conscrypt), PAIRS, WARM pass.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd "$HERE/../../.." && pwd)
SHAPE=$1; A=$2; B=$3; PAIRS=${PAIRS:-3}
export GW_PORT=23081 ORIGIN_PORT=23080 ADMIN_PORT=23901 SHARED=/work/shared/bench
echo "shape $SHAPE, $PAIRS pairs, ${PROXY:-loomgate}: A = $A, B = $B, WARM ${WARM:-default}"
for p in $(seq "$PAIRS"); do
    if ((p % 2)); then order="A B"; else order="B A"; fi
    for side in $order; do
        jar=$A; [[ $side == B ]] && jar=$B
        echo "== pair $p side $side $(date -u +%H:%M:%S) uptime: $(uptime | sed 's/.*load/load/')"
        PROXIES=${PROXY:-loomgate} ROUNDS=1 JAR=$jar nice -n 5 "$ROOT/bench/syscalls/run.sh" "$SHAPE" 2>&1 | grep -v '^$'
    done
done
