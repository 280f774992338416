#!/usr/bin/env bash
# W9 in the harness itself (its tls family's warm-up, then W9 alone) beside HAProxy, for one frozen build.
#   w9-harness.sh /tmp/w9jit-base; w9-harness.sh /tmp/w9jit-b1; ... (alternated; uptime before and after)
d=${1:?frozen build dir}
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
cd /tmp; echo "load before: $(uptime)"
PROXY_NAME=loomgate PROXY_CMD_TLS="$d/loomgate serve --config $d/bench/configs/gw-tls-conscrypt.yaml" \
WORKLOADS="W9" PROXIES="haproxy-t1 loomgate" REPEAT=1 WARM_MAX=60 /work/shared/bench/run.sh
echo "load after: $(uptime)"
