#!/bin/bash
# One EpollFuzzTest run outside Maven (FuzzMain.java, compiled into /tmp/fm/out against the test classpath, which
# /tmp/fm/cp holds: loomgate-epoll/target/test-classes:loomgate-epoll/target/classes:<mvn dependency:build-classpath
# -Dmdep.includeScope=test>). Prints PASS or FAIL with the time. PIN="taskset -c 1" pins the JVM to one CPU.
# usage: fuzz-run.sh block-millis [extra jvm args, e.g. -Djdk.virtualThreadScheduler.parallelism=1]
cd /work/wt/wake2
CP=/tmp/fm/out:$(cat /tmp/fm/cp)
bm=$1; shift
timeout 300 ${PIN:-} nice -n 10 /usr/lib/jvm/temurin-25-jdk-amd64/bin/java -Xmx512m -cp $CP --enable-native-access=ALL-UNNAMED -Dloomgate.epoll.block-millis=$bm "$@" io.loomgate.server.FuzzMain 2>&1 | grep -v WARNING | tail -3
