#!/usr/bin/env bash
# bench/harness-phases in COUNT mode with the JFR census, alternated per round: base = main's build (its launcher,
# jars and cache, frozen in /tmp/eagerc2-base), opt1 = this branch's build (the training with steady rounds, frozen
# in /tmp/eagerc2-b1) with the launcher's flags plus eager+skip; launcher = the branch's build without them; opt2 =
# the branch's build, eager+skip and the compiler threads at nice 10 (ThreadPriorityPolicy=1).
#   SHAPE_=w9|plain PROXIES="base opt1" ROUNDS=3 run-variants.sh
cd "${FROZEN:-/tmp/eagerc2-b1}"
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 SHARED=/work/shared/bench BASE=${BASE:-/tmp/eagerc2-base}
export ORIGIN_PORT=28580 PORT=28581 ADMIN_PORT=28591 WORK=/tmp/eagerc2-hp-${SHAPE_:-w9}
EAGER="-XX:+UnlockExperimentalVMOptions -XX:+AOTCompileEagerly -XX:+UnlockDiagnosticVMOptions -XX:+SkipTier2IfPossible"
export OPTS_opt1="$EAGER"
export OPTS_opt2="$EAGER -XX:ThreadPriorityPolicy=1 -XX:CompilerThreadPriority=10"
export PROXIES="${PROXIES:-base opt1}" JFR=1 COUNT=${COUNT:-20000} ROUNDS=${ROUNDS:-3} MORE=${MORE:-3}
exec bench/harness-phases/run.sh "${SHAPE_:-w9}"
