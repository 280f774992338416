#!/usr/bin/env bash
# W9 in COUNT mode: main's launcher and cache against three JIT flag sets, alternated per round
cd /tmp/eagerjit-frozen
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 SHARED=/work/shared/bench
export ORIGIN_PORT=28580 PORT=28581 ADMIN_PORT=28591 WORK=/tmp/eagerjit-hp-${SHAPE_:-w9}
export OPTS_opt1="-XX:+UnlockExperimentalVMOptions -XX:+AOTCompileEagerly"
export OPTS_opt2="-XX:+UnlockExperimentalVMOptions -XX:+AOTCompileEagerly -XX:+UnlockDiagnosticVMOptions -XX:+SkipTier2IfPossible"
export OPTS_opt3="-XX:+UnlockDiagnosticVMOptions -XX:+SkipTier2IfPossible"
export PROXIES="${PROXIES:-launcher opt1 opt2 opt3}" JFR=1 COUNT=${COUNT:-20000} ROUNDS=${ROUNDS:-3} MORE=${MORE:-3}
exec bench/harness-phases/run.sh "${SHAPE_:-w9}"
