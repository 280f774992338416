#!/usr/bin/env bash
# The alternated pairs of session 57 (h2alloc), one after the other: base = main 76c963bd, after = this branch.
# Ports 29700-29703 (origin, gateway, nghttpd, admin).
set -u
R=$(cd "$(dirname "$0")" && pwd); A=$R/../../alloc/run.sh; J=/tmp/h2alloc-jars
export ORIGIN_PORT=29700 PORT=29701 NGHTTPD_PORT=29702 ADMIN_PORT=29703 WORK=/tmp/h2alloc-alloc
run() { "$@" 2>&1 | tail -1; }
for pair in "base after" "after base"; do
  for b in $pair; do DATA=$J/1k.bin run $A $J/$b.jar $b-1k w8h2; done
done
for b in base after; do GRPCLOAD=$J/grpcload GRPCARGS="-size 100 -pieces 1" run $A $J/$b.jar $b-unary w8h2; done
for b in base after; do GRPCLOAD=$J/grpcload GRPCARGS="-size 100 -pieces 4" run $A $J/$b.jar $b-stream4 w8h2; done
for b in after base; do run $A $J/$b.jar $b-get w8; done
