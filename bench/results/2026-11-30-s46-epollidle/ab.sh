#!/usr/bin/env bash
# Session 46 (epollidle): interleaved rounds, one jar, the idle loop's wait as the only difference between
# loomgate-epoll "sockets" (main's hand-over) and "nested" (the second epoll set); the JDK transport and HAProxy beside.
# usage: ab.sh SHAPE ROUNDS "ORDER" (ORDER: words among sockets nested haproxy jdk), output to stdout
set -uo pipefail
cd /work/wt/epollidle
export SHARED=/work/shared/bench JAR=${JAR:-/tmp/epollidle-nested.jar}
export GW_PORT=47081 ORIGIN_PORT=47080 ADMIN_PORT=47901
shape=$1; rounds=$2; order=$3
for r in $(seq "$rounds"); do
  for v in $order; do
    echo "== $shape round $r: $v  $(date -u +%H:%M:%S)  uptime: $(uptime | sed 's/.*load/load/')"
    case $v in
      sockets) EPOLL_JVM_ARGS=-Dloomgate.epoll.idle-wait=sockets PROXIES=loomgate-epoll ROUNDS=1 bench/syscalls/run.sh "$shape" ;;
      nested)  EPOLL_JVM_ARGS=-Dloomgate.epoll.idle-wait=poller-fd PROXIES=loomgate-epoll ROUNDS=1 bench/syscalls/run.sh "$shape" ;;
      nestadd) EPOLL_JVM_ARGS=-Dloomgate.epoll.idle-wait=poller-fd-add PROXIES=loomgate-epoll ROUNDS=1 bench/syscalls/run.sh "$shape" ;;
      fsockets) EPOLL_JVM_ARGS=-Dloomgate.epoll.idle-wait=sockets PROXIES=floor-epoll ROUNDS=1 bench/syscalls/run.sh "$shape" ;;
      fnested) EPOLL_JVM_ARGS=-Dloomgate.epoll.idle-wait=poller-fd PROXIES=floor-epoll ROUNDS=1 bench/syscalls/run.sh "$shape" ;;
      fnestadd) EPOLL_JVM_ARGS=-Dloomgate.epoll.idle-wait=poller-fd-add PROXIES=floor-epoll ROUNDS=1 bench/syscalls/run.sh "$shape" ;;
      haproxy) PROXIES=haproxy ROUNDS=1 bench/syscalls/run.sh "$shape" ;;
      jdk)     PROXIES=loomgate ROUNDS=1 bench/syscalls/run.sh "$shape" ;;
    esac
  done
done
