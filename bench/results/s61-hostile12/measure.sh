#!/bin/bash
# usage: measure.sh JAR PROVIDER N
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin
sed "s/PROVIDER/$2/" gw.yaml > gw-$2.yaml
nice $J/java -XX:+UnlockExperimentalVMOptions -XX:+UseEpsilonGC -Xms3g -Xmx3g -XX:-UseCompressedOops -jar $1 serve --config gw-$2.yaml > gw-$2.log 2>&1 &
GW=$!
for i in $(seq 1 300); do (echo > /dev/tcp/127.0.0.1/29800) 2>/dev/null && break; sleep 0.1; done
heapinfo() { $J/jcmd $GW GC.heap_info; }
cpu() { awk '{print $14+$15}' /proc/$GW/stat; }
used() { $J/jcmd $GW GC.heap_info | python3 -c "import re,sys; m=re.search(r'\[0x([0-9a-f]+), 0x([0-9a-f]+)', sys.stdin.read()); print((int(m.group(2),16)-int(m.group(1),16))//1024)"; }
nice $J/java Flood.java 29800 200 > /dev/null   # warm: handshake and key updates compiled
nice $J/java Flood.java 29800 200 > /dev/null
for n in 0 $3 0 $3 0 $3; do
  c0=$(cpu); u0=$(used)
  out=$(nice $J/java Flood.java 29800 $n)
  sleep 1
  c1=$(cpu); u1=$(used)
  echo "provider=$2 n=$n: $out | gateway cpu $((c1-c0)) ticks (10 ms), allocated $((u1-u0)) KB"
done
heapinfo | head -5; kill $GW; wait $GW 2>/dev/null
