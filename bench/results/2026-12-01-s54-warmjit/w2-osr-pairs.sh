#!/usr/bin/env bash
# W2 once warm (bench/syscalls w2: 30 s warm-up, then the window), the gateway's jar with and without
# -XX:-UseOnStackReplacement, alternated A B, B A, A B on this branch's ports
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$HERE/../../.."
export SHARED=/work/shared/bench GW_PORT=29881 ORIGIN_PORT=29880 ADMIN_PORT=29891 PROXIES=loomgate ROUNDS=1
one() { echo "== $1 $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
        if [[ $1 == A ]]; then JVM_ARGS="" bench/syscalls/run.sh w2; else JVM_ARGS="-XX:-UseOnStackReplacement" bench/syscalls/run.sh w2; fi; }
for p in A B B A A B; do one $p; done
