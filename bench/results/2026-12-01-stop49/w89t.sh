#!/usr/bin/env bash
# W8/W9 beside HAProxy for one checkout on one transport (jdk|epoll). Usage: w89t.sh <checkout> <transport>
d=${1:?checkout}; t=${2:?transport}
cd /tmp; uptime
mk() { sed "s/^server:\$/server:\n  transport: $t/" "$d/bench/configs/$1" > /tmp/cfg-$t-$1; }
mk gw-tls-conscrypt.yaml; mk gw-h2c.yaml
grep -c "transport: $t" /tmp/cfg-$t-gw-tls-conscrypt.yaml /tmp/cfg-$t-gw-h2c.yaml
PROXY_NAME=loomgate PROXY_CMD="$d/loomgate serve --config $d/bench/configs/gateway-bench.yaml" \
PROXY_CMD_TLS="$d/loomgate serve --config /tmp/cfg-$t-gw-tls-conscrypt.yaml" \
PROXY_CMD_H2C="$d/loomgate serve --config /tmp/cfg-$t-gw-h2c.yaml" \
WORKLOADS="W8 W9" PROXIES="haproxy-t1 loomgate" REPEAT=1 WARM_MAX=60 /work/shared/bench/run.sh
uptime
