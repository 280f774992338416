#!/usr/bin/env bash
# One round of bench/epollwake/account.sh over variants, in order (session 53): "name|jar|jvm args" per variant,
# HAProxy as "haproxy||". Appends each summary to $LOG.
#   LOG=bench/results/x.log bench/epollwake/round.sh w2 "base|/tmp/base.jar|" "spins16|/tmp/base.jar|-Dloomgate.epoll.spins=16" "haproxy||"
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SHAPE=$1; shift
for v in "$@"; do
    IFS='|' read -r name jar args <<< "$v"
    proxy=loomgate-epoll; [[ $name == haproxy ]] && proxy=haproxy
    echo "== $name ($(date -u +%H:%M:%S))" >> "$LOG"
    rm -f "/tmp/epollwake-account.${GW_PORT:-29681}.$SHAPE.$proxy.summary"
    JAR=${jar:-/tmp/epollwake-base-gateway.jar} EPOLL_JVM_ARGS=$args "$HERE/account.sh" "$SHAPE" "$proxy" > /dev/null 2>&1
    cat "/tmp/epollwake-account.${GW_PORT:-29681}.$SHAPE.$proxy.summary" >> "$LOG"
    sleep 2
done
