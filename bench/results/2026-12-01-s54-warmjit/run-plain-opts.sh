#!/usr/bin/env bash
# The plain warm-up's census per 5 s round, the launcher (its AOT cache) alternated with the flag variants of env.sh:
#   bench/results/2026-12-01-s54-warmjit/run-plain-opts.sh > out.txt   (ROUNDS=4 pairs; PROXIES to change the set)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/env.sh"
cd "$HERE/../../.."
JFR=1 COMPILES=1 WARM_FIXED=${WARM_FIXED:-5} ROUNDS=${ROUNDS:-4} PROXIES=${PROXIES:-"launcher opt1 opt2"} \
    KEEP=${KEEP:-/tmp/warmjit-keep/opts} bench/harness-phases/run.sh plain
