#!/usr/bin/env bash
# Base (main) against branch, alternated, each beside HAProxy: bench/syscalls/run.sh with ROUNDS=1 and
# PROXIES="loomgate-epoll haproxy" per jar, PAIRS times, on this task's ports (session 53).
#   BASE=/tmp/base.jar BRANCH=/tmp/branch.jar PAIRS=3 bench/epollwake/ab.sh w2 >> log
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export GW_PORT=${GW_PORT:-29681} ORIGIN_PORT=${ORIGIN_PORT:-29680} ADMIN_PORT=${ADMIN_PORT:-29691}
for i in $(seq "${PAIRS:-3}"); do
    for v in base branch; do
        jar=$BASE; [[ $v == branch ]] && jar=$BRANCH
        echo "== pair $i $v $1 ($(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg))"
        JAR=$jar ROUNDS=1 PROXIES="loomgate-epoll haproxy" "$HERE/../syscalls/run.sh" "$1" 2>&1
    done
done
