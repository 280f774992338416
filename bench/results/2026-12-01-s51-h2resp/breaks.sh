#!/usr/bin/env bash
# breaks.sh: each deliberate break of FrameWriter.appendResponseBlock, then the tests that must catch it; reverted after.
cd /work/wt/h2resp
F=loomgate-core/src/main/java/io/loomgate/http2/FrameWriter.java
run() { # name sed-expression
    echo "== break: $1"
    sed -i "$2" $F
    git diff --stat $F | tail -1
    git diff $F | grep '^[-+] ' 
    rm -rf loomgate-core/target/surefire-reports loomgate-cli/target/surefire-reports
    JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 timeout 1200 ./mvnw -B -q -o -Dmaven.repo.local=/tmp/m2-h2resp/repository -pl loomgate-cli -am test \
        -Dtest='ResponseBlockFramesTest,Http2LargeResponseHeadsTest,ResponseFramingTest' -Dsurefire.failIfNoSpecifiedTests=false -Djacoco.skip=true -Dmaven.test.failure.ignore=true > /tmp/h2resp/break.log 2>&1
    grep -h "Tests run:.*in io" loomgate-core/target/surefire-reports/*ResponseBlockFramesTest.txt loomgate-cli/target/surefire-reports/*Http2LargeResponseHeadsTest.txt loomgate-cli/target/surefire-reports/*ResponseFramingTest.txt 2>/dev/null
    grep -ah "^\[ERROR\]   \|^\[ERROR\] Tests run\|<<< FAIL" /tmp/h2resp/break.log | grep -v "^\[ERROR\] Tests run: [0-9]*, Failures: 0" | head -12
    git checkout -q $F
}
case ${1:-all} in
forward) run "pieces moved first to last (overwrites pieces not yet moved)" 's/for (int i = continuations; i > 0; i--) {/for (int i = 1; i <= continuations; i++) {/' ;;
*)
run "no END_HEADERS on the last CONTINUATION" 's/i == continuations ? Frames.FLAG_END_HEADERS : 0, streamId/0, streamId/'
run "pieces moved first to last (overwrites pieces not yet moved)" 's/for (int i = continuations; i > 0; i--) {/for (int i = 1; i <= continuations; i++) {/'
run "the grown buffer not adopted" 's/if (grown != buf) {/if (false) {/'
run "CONTINUATION headers one byte early" 's/int at = frame + i \* (Frames.HEADER_LENGTH + maxFrameSize);/int at = frame + i * (Frames.HEADER_LENGTH + maxFrameSize) - 1;/'
;;
esac
