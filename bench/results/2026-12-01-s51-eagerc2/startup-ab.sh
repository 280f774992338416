#!/usr/bin/env bash
# Exec to the first 200 (bench/startup/ab.sh, the launcher's flags), alternated: A = main's build on its own cache
# (/tmp/eagerc2-base), B = this branch's build on its cache (/tmp/eagerc2-b1) with B_RUN_OPTS (default eager+skip).
# The two caches are the frozen builds' (the ones the harness-phases runs used), put in ab.sh's work folders with the
# record ab.sh checks, so ab.sh trains nothing.
set -euo pipefail
export LAUNCHER_FLAGS=1 ROUNDS=${ROUNDS:-9} WORK=${WORK:-/tmp/eagerc2-startup} PORT=28561 ORIGIN_PORT=28560
export B_RUN_OPTS=${B_RUN_OPTS-"-XX:+UnlockExperimentalVMOptions -XX:+AOTCompileEagerly -XX:+UnlockDiagnosticVMOptions -XX:+SkipTier2IfPossible"}
AB=/work/wt/eagerc2/bench/startup/ab.sh
eval "$(sed -n '/^AOT_FLAGS=(/,/)$/p' /work/wt/eagerc2/loomgate)"
FLAGS=("${AOT_FLAGS[@]}" -XX:+ExitOnOutOfMemoryError)
for w in a:/tmp/eagerc2-base b:/tmp/eagerc2-b1; do
    way=${w%%:*} src=${w#*:}/loomgate-cli/target
    mkdir -p "$WORK/$way"
    cp -p "$src/loomgate-gateway.jar" "$WORK/$way/gateway.jar"
    cp -p "$src/loomgate-gateway.aot" "$WORK/$way/gateway.aot"
    extra=()
    echo "$(sha256sum "$WORK/$way/gateway.jar" | cut -d' ' -f1) $(stat -c %Y "$WORK/$way/gateway.jar") ${FLAGS[*]} ${extra[*]}" > "$WORK/$way/gateway.aot.id"
done
exec "$AB" /tmp/eagerc2-base/loomgate-cli/target/loomgate-gateway.jar /tmp/eagerc2-base/loomgate-cli/target/loomgate.jar \
    /tmp/eagerc2-b1/loomgate-cli/target/loomgate-gateway.jar /tmp/eagerc2-b1/loomgate-cli/target/loomgate.jar
