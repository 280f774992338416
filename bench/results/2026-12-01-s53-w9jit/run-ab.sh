#!/usr/bin/env bash
# COUNT-mode W9 sequence with the JFR census, base (main's frozen build) and the variants alternated:
#   PROXIES="base opt1" ROUNDS=2 KEEP=/tmp/w9jit-keepN run-ab.sh > out.txt
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/env.sh"; . "$HERE/opts.sh"
cd "${FROZEN:-$BASE}"
export JFR=1 COUNT=${COUNT:-20000} ROUNDS=${ROUNDS:-2} MORE=${MORE:-2}
exec bench/harness-phases/run.sh w9
