#!/usr/bin/env bash
# The harness's own time-based sequence (5 s warm-up rounds until steady, then for w9 pre-3s and the 10 s WINDOW),
# HAProxy beside the launcher and the launcher with AOTCompileEagerly (opt1), alternated: warm_s and the window's CPU
# per request as hints only (loaded machine).
cd /tmp/eagerjit-frozen
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 SHARED=/work/shared/bench
export ORIGIN_PORT=28580 PORT=28581 ADMIN_PORT=28591 WORK=/tmp/eagerjit-hp-time-$1
export OPTS_opt1="-XX:+UnlockExperimentalVMOptions -XX:+AOTCompileEagerly"
export PROXIES="haproxy launcher opt1" ROUNDS=${ROUNDS:-2} MORE=0
exec bench/harness-phases/run.sh "$1"
