#!/usr/bin/env bash
# W8's shape (h2c, h2load -c100 -m10 /hello, jdk transport) through bench/harness-phases in COUNT mode with the JFR
# census, the three frozen builds alternated per round: head = main 710c5a9d (/tmp/s51head), nosplit = main with
# stackchunk (798b01bd) reverted, notrain = main with epolltrain (a3dc3c2a) reverted. Each through its own launcher,
# jars and AOT cache. The recordings (with jdk.GCHeapSummary, for alloc.py) are kept in KEEP.
#   ROUNDS=3 bench/results/2026-12-01-s51-w8iso/run-w8.sh > w8-count-1.txt
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$HERE/../../.."
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 SHARED=/work/shared/bench
export BASE_head=/tmp/s51head BASE_nosplit=/tmp/s51nosplit BASE_notrain=/tmp/s51notrain
export ORIGIN_PORT=28580 PORT=28581 ADMIN_PORT=28591 WORK=/tmp/w8iso-hp
export PROXIES="${PROXIES:-basehead basenosplit basenotrain}" JFR=1 JFC="$HERE/jit-heap.jfc"
export COUNT=${COUNT:-30000} ROUNDS=${ROUNDS:-3} MORE=${MORE:-3} KEEP=${KEEP:-/tmp/w8iso-keep-$(date +%H%M)}
echo "# recordings kept in $KEEP"
exec bench/harness-phases/run.sh w8
