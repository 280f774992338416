#!/usr/bin/env bash
# W2 and W8 beside HAProxy for one checkout and optional LOOMGATE_JAVA_OPTS. Usage: w28.sh <checkout> [opts]
d=${1:?checkout}; o=${2:-}
cd /tmp; uptime
PROXY_NAME=loomgate PROXY_CMD="env LOOMGATE_JAVA_OPTS='$o' $d/loomgate serve --config $d/bench/configs/gateway-bench.yaml" \
PROXY_CMD_H2C="env LOOMGATE_JAVA_OPTS='$o' $d/loomgate serve --config $d/bench/configs/gw-h2c.yaml" \
WORKLOADS="W2 W8" PROXIES="haproxy-t1 loomgate" REPEAT=1 WARM_MAX=60 /work/shared/bench/run.sh
uptime
