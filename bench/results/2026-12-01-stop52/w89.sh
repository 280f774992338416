#!/usr/bin/env bash
# W8/W9 beside HAProxy for one checkout (before/after pairs). Usage: w89.sh <checkout>
d=${1:?checkout}
cd /tmp; uptime
PROXY_NAME=loomgate PROXY_CMD="$d/loomgate serve --config $d/bench/configs/gateway-bench.yaml" \
PROXY_CMD_TLS="$d/loomgate serve --config $d/bench/configs/gw-tls-conscrypt.yaml" \
PROXY_CMD_H2C="$d/loomgate serve --config $d/bench/configs/gw-h2c.yaml" \
WORKLOADS="W8 W9" PROXIES="haproxy-t1 loomgate" REPEAT=1 WARM_MAX=60 /work/shared/bench/run.sh
uptime
