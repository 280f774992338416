#!/usr/bin/env bash
# W2's shape (the harness's plain /hello at 256 connections) once warm, the launcher (its cache) against opt3: ten 5 s
# rounds each, alternated; rounds 7-10 are the once-warm figure (CPU µs per request over them).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/env.sh"
cd "$HERE/../../.."
COMPILES=1 WARM_FIXED=10 ROUNDS=${ROUNDS:-2} PROXIES=${PROXIES:-"launcher opt3"} bench/harness-phases/run.sh plain
