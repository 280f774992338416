#!/bin/bash
# one run: origin that never answers, gateway JAR ($1), an h1 GET, an h1 upload, an h2c GET; SIGTERM once the origin has all three
cd $(dirname $0)
python3 origin.py > origin.out 2>&1 & OP=$!
/usr/lib/jvm/temurin-25-jdk-amd64/bin/java -Xmx128m -jar $1 serve --config gw.yaml --no-watch > gw.out 2>&1 & GP=$!
for i in $(seq 1 200); do grep -q 'listening on' gw.out && break; sleep 0.1; done
curl -s -m 20 http://127.0.0.1:29720/slow-h1 > /dev/null & C1=$!
( head -c 1000 /dev/zero; sleep 15 ) | curl -s -m 20 -X POST -T - http://127.0.0.1:29720/upload > /dev/null & C2=$!
curl -s -m 20 --http2-prior-knowledge http://127.0.0.1:29720/slow-h2 > /dev/null & C3=$!
for i in $(seq 1 200); do [ $(grep -c 'origin got' origin.out) -ge 3 ] && break; sleep 0.05; done
echo "origin heads: $(grep -c 'origin got' origin.out)"
T0=$(date +%s.%N); kill -TERM $GP; wait $GP; RC=$?; T1=$(date +%s.%N)
echo "exit $RC after $(echo "$T1 - $T0" | bc) s"
grep -o '"url.path":"[^"]*"\|"loomgate.failure":"[^"]*"\|"event.duration":[0-9]*' gw.out | paste - - - 
grep -E 'drain|exiting' gw.out | cut -c1-160
kill $OP $C1 $C2 $C3 2>/dev/null; wait 2>/dev/null
