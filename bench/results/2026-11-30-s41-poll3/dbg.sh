#!/bin/bash
# usage: dbg.sh tag block-millis [jvm args]
tag=$1; bm=$2; shift 2
cd /work/wt/poll3
CP=/tmp/poll3-fm/dbg:/tmp/poll3-fm/out:/tmp/poll3-fm/epoll-test-classes:/tmp/poll3-fm/epoll-classes:$(cat /tmp/poll3-fm/cp)
timeout 400 nice -n ${NICE:-10} /usr/lib/jvm/temurin-25-jdk-amd64/bin/java -Xmx512m -cp $CP --enable-native-access=ALL-UNNAMED -Dloomgate.epoll.block-millis=$bm "$@" io.loomgate.server.FuzzDbg 2>&1 | grep -v WARNING > /tmp/poll3-fm/dbg-$tag.log
echo "$tag: $(tail -c 300 /tmp/poll3-fm/dbg-$tag.log)"
