#!/bin/bash
# usage: fix.sh tag block-millis [jvm args]: one EpollFuzzTest run on the working tree's classes (the fix)
tag=$1; bm=$2; shift 2
cd /work/wt/poll3
CP=/tmp/poll3-fm/fix:/tmp/poll3-fm/out:/tmp/poll3-fm/epoll-test-classes:/tmp/poll3-fm/epoll-classes:$(cat /tmp/poll3-fm/cp)
l0=$(cut -d' ' -f1 /proc/loadavg)
timeout 400 nice -n ${NICE:-10} /usr/lib/jvm/temurin-25-jdk-amd64/bin/java -Xmx512m -cp $CP --enable-native-access=ALL-UNNAMED -Dloomgate.epoll.block-millis=$bm "$@" io.loomgate.server.FuzzFix 2>&1 | grep -v WARNING > /tmp/poll3-fm/fix-$tag.log
echo "$tag bm=$bm $* load $l0-$(cut -d' ' -f1 /proc/loadavg): $(grep -E '^(PASS|FAIL)' /tmp/poll3-fm/fix-$tag.log | cut -c1-160) ... $(grep -oE '[0-9]+ ms handoffs.*' /tmp/poll3-fm/fix-$tag.log)"
