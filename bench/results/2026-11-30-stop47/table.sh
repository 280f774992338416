#!/usr/bin/env bash
# The stop's one same-run table: W1-W9 beside nginx (1 worker) and HAProxy (1 thread), the gateway as shipped by
# the launcher (AOT cache, default provider = Conscrypt on glibc Linux). Usage: table42.sh <checkout> <label>
d=${1:?checkout}; label=${2:?label}
cd /tmp
uptime
PROXY_NAME=loomgate \
PROXY_CMD="$d/loomgate serve --config $d/bench/configs/gateway-bench.yaml" \
PROXY_CMD_TLS="$d/loomgate serve --config $d/bench/configs/gw-tls-conscrypt.yaml" \
PROXY_CMD_H2C="$d/loomgate serve --config $d/bench/configs/gw-h2c.yaml" \
WORKLOADS="W1 W2 W3 W4 W5 W6 W7 W8 W9" PROXIES="nginx-w1 haproxy-t1 loomgate" REPEAT=1 WARM_MAX=60 \
  /work/shared/bench/run.sh
uptime
