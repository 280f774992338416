#!/usr/bin/env bash
# W1/W2 beside HAProxy for one checkout (before/after pairs). Usage: w12.sh <checkout>
d=${1:?checkout}
cd /tmp; uptime
PROXY_NAME=loomgate PROXY_CMD="$d/loomgate serve --config $d/bench/configs/gateway-bench.yaml" \
WORKLOADS="W1 W2" PROXIES="haproxy-t1 loomgate" REPEAT=1 WARM_MAX=60 /work/shared/bench/run.sh
uptime
