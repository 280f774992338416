#!/bin/bash
# usage: run.sh A|B body n
jar=/tmp/reset-$1.jar; body=$2; n=$3
JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
$JAVA -jar $jar serve -c gw.yaml --no-watch > gw-$1.log 2>&1 &
gpid=$!
for i in $(seq 100); do curl -s -o /dev/null http://127.0.0.1:29510/ -d x && break; sleep 0.2; done
h2load --h1 -n 2000 -c 2 -d $body http://127.0.0.1:29510/p > /dev/null 2>&1   # warm-up
strace -f -c -o strace-$1-$body.txt -p $gpid &
spid=$!; sleep 1
h2load --h1 -n $n -c 2 -d $body http://127.0.0.1:29510/p | grep -E "requests:|status codes"
kill -INT $spid; wait $spid 2>/dev/null
kill $gpid; wait $gpid 2>/dev/null
tail -1 strace-$1-$body.txt
