#!/usr/bin/env bash
# pairs.sh SHAPE A.jar B.jar [PAIRS]: bench/syscalls runs alternated A B B A ..., full per-syscall output kept.
SHAPE=$1; A=$2; B=$3; N=${4:-2}
cd "$(dirname "$0")/../../.."
for ((i = 1; i <= N; i++)); do
  if (( i % 2 )); then order="A B"; else order="B A"; fi
  for side in $order; do
    jar=$A; [[ $side == B ]] && jar=$B
    echo "== pair $i side $side $(date -u +%H:%M:%S)"
    SHARED=/work/shared/bench GW_PORT=44081 ORIGIN_PORT=44080 ADMIN_PORT=44901 WARM=${WARM:-60} ROUNDS=1 \
      PROXIES=${PROXY:-loomgate-conscrypt} JAR=$jar nice -n 10 bench/syscalls/run.sh $SHAPE 2>&1 | grep -E "round|system calls"
  done
done
