#!/usr/bin/env bash
# W9's sequence in COUNT mode (20,000 requests a phase), the launcher (its cache) against opt3, alternated, with JFR
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/env.sh"
cd "$HERE/../../.."
JFR=1 COMPILES=1 COUNT=20000 MORE=1 ROUNDS=${ROUNDS:-2} PROXIES=${PROXIES:-"launcher opt3"} \
    KEEP=${KEEP:-/tmp/warmjit-keep/w9opt3} bench/harness-phases/run.sh w9
