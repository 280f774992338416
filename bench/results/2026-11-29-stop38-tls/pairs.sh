#!/usr/bin/env bash
# pairs.sh NAME JAR_A CONFIG_A JAR_B CONFIG_B: interleaved W5 runs (A B, B A, ...) through prof-w5.sh (own ports
# 47081/47080, no profiler), PAIRS pairs; prints each run and B/A CPU per pair.
set -uo pipefail
NAME=$1; JA=$2; CA=$3; JB=$4; CB=$5; PAIRS=${PAIRS:-3}
mkdir -p /tmp/tlsw5; out=/tmp/tlsw5/pairs-$NAME.txt; : > "$out"
echo "W5 pairs $NAME: A=$JA $CA, B=$JB $CB, WARM=${WARM:-60} D=${D:-15}" | tee -a "$out"
declare -A cpu
for ((p = 1; p <= PAIRS; p++)); do
  if ((p % 2)); then order="A B"; else order="B A"; fi
  for s in $order; do
    if [[ $s == A ]]; then j=$JA; c=$CA; else j=$JB; c=$CB; fi
    line=$(PROF=0 CONFIG=$c WARM=${WARM:-60} "$(dirname "$0")/prof-w5.sh" "$j" "$NAME-$p$s" 2>&1 | grep -E "req/s|per request" | tr '\n' ' ')
    echo "$(date +%H:%M) pair $p $s: $line" | tee -a "$out"
    cpu[$p$s]=$(sed -E 's/.*CPU ([0-9.]+) us.*/\1/' <<< "$line")
  done
done
for ((p = 1; p <= PAIRS; p++)); do
  awk -v p=$p -v a=${cpu[${p}A]} -v b=${cpu[${p}B]} 'BEGIN { printf "pair %d: B/A CPU %.3f\n", p, b / a }' | tee -a "$out"
done
