#!/usr/bin/env bash
# (The runs used a copy of run.sh with this load, since folded into run.sh as GRPCLOAD.)
# The second sequence (after seq.sh was stopped: the gRPC shape ran at ~600 requests/s, so 100,000 took minutes):
# after2 = this branch at 7d23c3f5 (the body's end awaited without BodyRelay.copy's long[]). Labels carry a run number.
set -u
R=$(cd "$(dirname "$0")" && pwd); A=$R/../../alloc/run.sh; J=/tmp/h2alloc-jars
export ORIGIN_PORT=29700 PORT=29701 NGHTTPD_PORT=29702 ADMIN_PORT=29703 WORK=/tmp/h2alloc-alloc
run() { "$@" 2>&1 | tail -1; }
i=0
for b in base after2; do i=$((i+1)); N=10000 WARM=10 GRPCLOAD=$J/grpcload GRPCARGS="-size 100 -pieces 1" run $A $J/$b.jar $b-unary-$i w8h2; done
for b in after2 after; do i=$((i+1)); DATA=$J/1k.bin run $A $J/$b.jar $b-1k-$i w8h2; done
for b in after2 base; do i=$((i+1)); N=10000 WARM=10 GRPCLOAD=$J/grpcload GRPCARGS="-size 100 -pieces 4" run $A $J/$b.jar $b-stream4-$i w8h2; done
