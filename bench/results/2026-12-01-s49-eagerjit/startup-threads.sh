#!/usr/bin/env bash
# Where the CPU to the first 200 goes, per thread (ttfr.py's TTFR_THREADS), on startup-ab.sh's eager cache: the
# launcher's flags (A), with AOTCompileEagerly (eager), with it and SkipTier2IfPossible (eagerskip); 3 rounds alternated.
set -euo pipefail
W=/tmp/eagerjit-startup-eager
eval "$(sed -n '/^AOT_FLAGS=(/,/)$/p' /work/wt/eagerjit/loomgate)"
X="-XX:+UnlockExperimentalVMOptions -XX:+AOTCompileEagerly"
S="-XX:+UnlockDiagnosticVMOptions -XX:+SkipTier2IfPossible"
/usr/lib/jvm/temurin-25-jdk-amd64/bin/java -jar /tmp/eagerjit-frozen/loomgate-cli/target/loomgate.jar backend --port 24490 > /dev/null 2>&1 &
o=$!; trap 'kill $o' EXIT
for i in $(seq 100); do curl -fsS -o /dev/null http://127.0.0.1:24490/hello 2>/dev/null && break; sleep 0.1; done
for r in 1 2 3; do
    for v in A eager eagerskip; do
        case $v in A) extra=() ;; eager) extra=($X) ;; eagerskip) extra=($X $S) ;; esac
        read -r ms cpu < <(TTFR_THREADS=/tmp/eagerjit-thr.txt /work/wt/eagerjit/bench/startup/ttfr.py 24491 /hello -- \
            /usr/lib/jvm/temurin-25-jdk-amd64/bin/java "${AOT_FLAGS[@]}" -XX:+ExitOnOutOfMemoryError "${extra[@]}" \
            -XX:AOTCache=$W/a/gateway.aot -Xlog:aot=off -jar $W/a/gateway.jar serve --config /tmp/eagerjit-startup-eager/gateway.yaml --no-watch)
        echo "round $r $v (load $(cut -d' ' -f1 /proc/loadavg)): $ms ms, cpu $cpu ms; by thread: $(awk '/C1 Comp|C2 Comp|main|Training/ {printf "%s=%s ", $2 $3, $1}' /tmp/eagerjit-thr.txt)"
    done
done
