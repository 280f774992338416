#!/usr/bin/env bash
# main's frozen build (base = /tmp/c2size-base) against the branch's frozen build (baseosr = /tmp/c2size-osr: the
# head parsers' byte loops in HttpChars.skip/trimEnd), each through its own launcher, jars and AOT cache; JFR=1 with
# harness-phases' jit.jfc; run from a frozen copy of the harness (/tmp/c2size-frozen) so nothing rebuilds under it.
#   run-ab.sh plain > plain-ab-osr-N.txt     (COUNT=40000 WARM_RUNS=11: the first 80,000 requests, steady 6-11)
#   run-ab.sh w9 > w9-ab-osr-N.txt            (COUNT=10000 WARM_RUNS=2 MORE=3)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/env.sh"
export BASE_osr=/tmp/c2size-osr JFR=1
cd /tmp/c2size-frozen
if [[ $1 == plain ]]; then export COUNT=40000 WARM_RUNS=11; else export COUNT=10000 WARM_RUNS=2 MORE=3; fi
for order in "base baseosr" "baseosr base"; do ROUNDS=${ROUNDS:-1} PROXIES="$order" bench/harness-phases/run.sh "$1"; done
