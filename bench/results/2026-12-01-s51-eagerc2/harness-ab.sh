#!/usr/bin/env bash
# The harness's own warm_s (../shared/bench/run.sh, PROXIES=loomgate, W2 W8 W9: the plain, h2c and tls families, each
# started afresh and warmed up by the harness's rule), main's build and this branch's with eager+skip in turn.
#   harness-ab.sh base|eager   (one run; alternate them)
set -euo pipefail
EAGER="-XX:+UnlockExperimentalVMOptions -XX:+AOTCompileEagerly -XX:+UnlockDiagnosticVMOptions -XX:+SkipTier2IfPossible"
case $1 in
    base) d=/tmp/eagerc2-base; pre="" ;;
    eager) d=${FROZEN:-/tmp/eagerc2-b1}; pre="env 'LOOMGATE_JAVA_OPTS=$EAGER' " ;;
esac
export PROXY_NAME=loomgate PROXIES=loomgate REPEAT=1 WORKLOADS="${WORKLOADS:-W2 W8 W9}"
export PROXY_CMD="$pre$d/loomgate serve --config $d/bench/configs/gateway-bench.yaml"
export PROXY_CMD_TLS="$pre$d/loomgate serve --config $d/bench/configs/gw-tls-conscrypt.yaml"
export PROXY_CMD_H2C="$pre$d/loomgate serve --config $d/bench/configs/gw-h2c.yaml"
exec /work/shared/bench/run.sh
