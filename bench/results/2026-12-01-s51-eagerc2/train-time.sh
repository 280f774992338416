#!/usr/bin/env bash
# The training's duration, base's and b1's full jars alternated (aot-train with the launcher's AOT_FLAGS, as
# `./loomgate build` runs it), each into a scratch cache: train-time.sh base b1 base b1 ...
set -euo pipefail
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
eval "$(sed -n '/^AOT_FLAGS=(/,/)$/p' /work/wt/eagerc2/loomgate)"
for b in "$@"; do
    t=/tmp/eagerc2-$b/loomgate-cli/target
    echo "# $b $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
    "$J" -jar "$t/loomgate.jar" aot-train --java "$J" --jar "$t/loomgate-gateway.jar" --output /tmp/eagerc2-tt.aot \
        -- "${AOT_FLAGS[@]}" 2>&1 | grep "aot-train:" | sed 's/.*bytes) for/(...) for/' | grep -o "([0-9,]* bytes\|in [0-9]* s$\|trained on [0-9]* requests"
    ls -l /tmp/eagerc2-tt.aot | awk '{print "cache bytes", $5}'
done
rm -f /tmp/eagerc2-tt.aot
