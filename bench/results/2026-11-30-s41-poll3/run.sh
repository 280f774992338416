#!/bin/bash
# usage: run.sh tag block-millis [jvm args]; dumps threads every 10 s after 40 s
tag=$1; bm=$2; shift 2
cd /work/wt/poll3
CP=/tmp/poll3-fm/out:$(cat /tmp/poll3-fm/cp)
out=/tmp/poll3-fm/res-$tag; mkdir -p $out
timeout 400 ${PIN:-} nice -n ${NICE:-10} /usr/lib/jvm/temurin-25-jdk-amd64/bin/java -Xmx512m -cp $CP --enable-native-access=ALL-UNNAMED -Dloomgate.epoll.block-millis=$bm "$@" io.loomgate.server.FuzzMain > $out/log 2>&1 &
pid=$!
t=0
while kill -0 $pid 2>/dev/null; do
  sleep 5; t=$((t+5))
  if [ $t -ge 40 ] && [ $((t % 10)) -eq 0 ]; then
    jpid=$(pgrep -P $pid -f FuzzMain | head -1); [ -z "$jpid" ] && jpid=$(pgrep -f "FuzzMain" | while read p; do [ "$(ps -o ppid= -p $p | tr -d ' ')" = "$pid" ] && echo $p; done)
    for p in $jpid; do /usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd $p Thread.dump_to_file -format=json $out/dump-$t.json >/dev/null 2>&1; /usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd $p Thread.print > $out/print-$t.txt 2>&1; ss -ltn | grep -v State >> $out/ss-$t.txt; done
  fi
done
echo "$tag bm=$bm $* : $(grep -v WARNING $out/log | tail -2)"
