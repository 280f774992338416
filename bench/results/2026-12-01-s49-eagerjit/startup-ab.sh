#!/usr/bin/env bash
# Exec to the first 200 (bench/startup/ab.sh, the launcher's flags), one jar twice: A = the launcher's flags and cache,
# B = the same with the flag set named by $1 (eager, eagerskip: run-time flags on the same training; adapters: a cache
# trained with -XX:+AOTAdapterCaching and used with it).
set -euo pipefail
J=/tmp/eagerjit-frozen/loomgate-cli/target
X="-XX:+UnlockExperimentalVMOptions -XX:+AOTCompileEagerly"
S="-XX:+UnlockDiagnosticVMOptions -XX:+SkipTier2IfPossible"
case $1 in
    eager) export B_RUN_OPTS="$X" ;;
    eagerskip) export B_RUN_OPTS="$X $S" ;;
    adapters) export B_OPTS="-XX:+UnlockDiagnosticVMOptions -XX:+AOTAdapterCaching" ;;
esac
[[ $1 == adapters ]] || export SAME_CACHE=1
export LAUNCHER_FLAGS=1 ROUNDS=${ROUNDS:-9} WORK=/tmp/eagerjit-startup-$1 PORT=24491 ORIGIN_PORT=24490
exec /work/wt/eagerjit/bench/startup/ab.sh "$J/loomgate-gateway.jar" "$J/loomgate.jar" "$J/loomgate-gateway.jar" "$J/loomgate.jar"
