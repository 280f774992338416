#!/usr/bin/env bash
# Two trainings each way, the two AOT steps apart: is `create` deterministic given one configuration, are the
# configurations the same, and without the training data (profiles)?
set -u
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
D=/tmp/aotexp
F=(-XX:+UseSerialGC -XX:+UseCompactObjectHeaders -XX:FlightRecorderOptions=memorysize=2m)
train() { local name=$1; shift; rm -f $D/$name.aot $D/$name.aotconf
  /usr/bin/time -f "$name train %e s" nice -n 10 $J -jar $D/full.jar aot-train --java $J --jar $D/gw.jar --output $D/$name.aot -- "${F[@]}" \
     -XX:AOTConfiguration=$D/$name.aotconf "$@" 2>&1 | tail -3; ls -l $D/$name.aot $D/$name.aotconf; }
create() { local conf=$1 out=$2; shift 2; rm -f $D/$out.aot
  /usr/bin/time -f "$out create %e s" nice -n 10 $J "${F[@]}" "$@" -XX:AOTMode=create -XX:AOTConfiguration=$D/$conf.aotconf -XX:AOTCache=$D/$out.aot -jar $D/gw.jar 2>&1 | tail -2; }
same() { if cmp -s $D/$1 $D/$2; then echo "SAME $1 $2"; else echo "DIFF $1 $2: $(cmp -l $D/$1 $D/$2 2>/dev/null | wc -l) bytes, sizes $(stat -c %s $D/$1 $D/$2 | tr '\n' ' ')"; fi; }
case ${1:-all} in
  prof)
    train p1; train p2; create p1 p1c
    same p1.aot p1c.aot; same p1.aotconf p2.aotconf; same p1.aot p2.aot ;;
  noprof)
    N=(-XX:+UnlockDiagnosticVMOptions -XX:-AOTRecordTraining)
    train n1 "${N[@]}"; train n2 "${N[@]}"; create n1 n1c "${N[@]}"
    same n1.aot n1c.aot; same n1.aotconf n2.aotconf; same n1.aot n2.aot ;;
  mtime) # the same jar with another mtime: recorded in the cache? refused at run time?
    N=(-XX:+UnlockDiagnosticVMOptions -XX:-AOTRecordTraining)
    touch -d @1764460800 $D/gw.jar; create n1 n1t "${N[@]}"; touch -d @1764374400 $D/gw.jar
    same n1c.aot n1t.aot
    for c in n1c n1t; do echo "run on $c (jar mtime of n1c):"; $J "${F[@]}" -XX:AOTCache=$D/$c.aot -XX:AOTMode=on -Xlog:aot=warning -jar $D/gw.jar --version 2>&1 | tail -3; done ;;
esac
