#!/usr/bin/env bash
# Alternated before/after pairs in the harness: each checkout (a folder with a built `./loomgate`, e.g. a git worktree
# or clone after `./loomgate build`) beside HAProxy (1 thread) in its own run of ../shared/bench/run.sh, in the order
# given (pass A B B A for two alternated pairs), then each run's Loomgate / HAProxy ratios.
#
# Usage: bench/pairs/run.sh w12|w89 CHECKOUT...
#   w12: W1 and W2 (bench/configs/gateway-bench.yaml)
#   w89: W8 over h2c (gw-h2c.yaml) and W9 over TLS with Conscrypt (gw-tls-conscrypt.yaml)
# Env: LOG (default /tmp/loomgate-pairs/<shape>-<UTC time>.log), WARM_MAX (60), REPEAT (1); the harness's own env
# (its README) passes through. Ports: the harness's (18080, 18081). Each run's load average is printed before and after.
# The ratios (ratios.py) name each run by its checkout's folder name and its turn: `after#2` is folder `after`'s second run.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd "$HERE/../.." && pwd)
SHAPE=${1:?usage: run.sh w12|w89 CHECKOUT...}; shift
[[ $# -gt 0 ]] || { echo "usage: run.sh w12|w89 CHECKOUT..."; exit 2; }
SHARED=${SHARED:-$(cd "$ROOT/../shared/bench" && pwd)}
mkdir -p /tmp/loomgate-pairs
LOG=${LOG:-/tmp/loomgate-pairs/$SHAPE-$(date -u +%Y%m%d-%H%M).log}
for d in "$@"; do
    d=$(cd "$d" && pwd) || exit 1
    [[ -x $d/loomgate ]] || { echo "$d: no ./loomgate (a checkout after ./loomgate build)"; exit 1; }
    echo "=== $SHAPE $d $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
    case $SHAPE in
        w12) (cd /tmp && PROXY_NAME=loomgate PROXY_CMD="$d/loomgate serve --config $d/bench/configs/gateway-bench.yaml" \
                 WORKLOADS="W1 W2" PROXIES="haproxy-t1 loomgate" REPEAT=${REPEAT:-1} WARM_MAX=${WARM_MAX:-60} "$SHARED/run.sh") ;;
        w89) (cd /tmp && PROXY_NAME=loomgate PROXY_CMD="$d/loomgate serve --config $d/bench/configs/gateway-bench.yaml" \
                 PROXY_CMD_TLS="$d/loomgate serve --config $d/bench/configs/gw-tls-conscrypt.yaml" \
                 PROXY_CMD_H2C="$d/loomgate serve --config $d/bench/configs/gw-h2c.yaml" \
                 WORKLOADS="W8 W9" PROXIES="haproxy-t1 loomgate" REPEAT=${REPEAT:-1} WARM_MAX=${WARM_MAX:-60} "$SHARED/run.sh") ;;
        *) echo "unknown shape $SHAPE (w12, w89)"; exit 2 ;;
    esac
    echo "=== done $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
done 2>&1 | tee "$LOG"
echo "--- ratios (Loomgate / HAProxy in each run), log $LOG"
python3 "$HERE/ratios.py" "$LOG"
