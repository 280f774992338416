#!/usr/bin/env bash
# per-thread CPU at the first 200, base vs new jar, each with its own cache from bench/startup/run.sh, N alternations
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
T=/work/wt/start150/bench/startup/ttfr.py
$J -jar /tmp/su-base/full.jar backend --port 24280 >/tmp/su-exp/origin.log 2>&1 &
origin=$!
trap 'kill $origin' EXIT
for ((i=0;i<200;i++)); do (exec 3<>/dev/tcp/127.0.0.1/24280) 2>/dev/null && break; sleep 0.05; done
echo "# load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r=1;r<=${N:-5};r++)); do
  for w in ${WAYS:-base new}; do
    W=/tmp/su-$w-w
    res=$(TTFR_THREADS=/tmp/su-exp/th-$w-$r.txt nice -n 10 $T 24281 /hello -- $J -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -XX:+ExitOnOutOfMemoryError -XX:AOTCache=$W/gateway.aot -Xlog:aot=off -Dloomgate.aot-cache=$W/gateway.aot $EXTRA -jar $W/gateway.jar serve --config $W/gateway.yaml --no-watch)
    f=/tmp/su-exp/th-$w-$r.txt
    main=$(awk '$2=="java"{print $1; exit}' $f); c1=$(awk '/C1 Compiler/{s+=$1} END{print s+0}' $f); c2=$(awk '/C2 Compiler/{s+=$1} END{print s+0}' $f)
    echo "round $r $w: wall/cpu $res main $main C1 $c1 C2 $c2"
  done
done
echo "# load after $(cut -d' ' -f1-3 /proc/loadavg)"
