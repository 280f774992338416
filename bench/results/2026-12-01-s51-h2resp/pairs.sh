#!/usr/bin/env bash
# pairs.sh SHAPE PAIRS A.jar B.jar: bench/syscalls/run.sh alternated A B, B A, ... (as bench/ab does) on this branch's
# ports, each run's whole output kept as syscalls-SHAPE-pN-SIDE.txt (bench/ab keeps only CPU, req/s and reads).
HERE=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd "$HERE/../../.." && pwd)
SHAPE=$1; PAIRS=$2; A=$3; B=$4
for ((p = 1; p <= PAIRS; p++)); do
    if ((p % 2)); then order="A B"; else order="B A"; fi
    for side in $order; do
        if [[ $side == A ]]; then jar=$A; else jar=$B; fi
        (cd "$ROOT" && SHARED=/work/shared/bench GW_PORT=28681 ORIGIN_PORT=28680 ADMIN_PORT=28691 PROXIES=loomgate ROUNDS=1 \
            JAR=$jar bench/syscalls/run.sh "$SHAPE" > "$HERE/syscalls-$SHAPE-p$p-$side.txt" 2>&1)
    done
done
