#!/bin/bash
# run.sh NAME PORT TRANSPORT THREADS PROV: a TLS gateway (the branch's jar) before slow.py on 29801;
# 1) sanity GETs h1/h2; 2) uploads aborted by the client (curl killed mid-body) h1/h2;
# 3) a client that gives up on a slow origin (h2: curl --max-time); 4) SIGTERM with in flight: an h1 GET and an h2
# GET that stay, an h1 GET whose client leaves after the signal, an h1 upload still streaming. Prints the access
# lines' path/status/failure and the failure metric before the signal.
NAME=$1 PORT=$2 TRANSPORT=$3 THREADS=$4 PROV=$5
JAR=${JAR:-/work/wt/combo11/loomgate-cli/target/loomgate.jar}
U=https://localhost:$PORT
C="curl -sk --cacert /tmp/combo11-certs/srv.pem"
PORT=$PORT ADMIN=$((PORT+1)) TRANSPORT=$TRANSPORT THREADS=$THREADS PROV=$PROV \
  nice /usr/lib/jvm/temurin-25-jdk-amd64/bin/java -Xmx256m -jar $JAR serve --config t.yaml > gw-$NAME.log 2>&1 &
GW=$!
for i in $(seq 1 100); do $C -o /dev/null $U/ready 2>/dev/null && break; sleep 0.2; done
echo "== $NAME: $TRANSPORT $THREADS $PROV"
echo "-- sanity"; $C --http1.1 -w ' %{http_code} %{http_version}\n' $U/fast1; $C --http2 -w ' %{http_code} %{http_version}\n' $U/fast2
echo "-- aborted uploads (curl killed after ~0.7 s of a 100 KB/s body)"
for v in --http1.1 --http2; do
  $C $v --data-binary @/tmp/combo11-10m.bin -H 'Content-Type: application/octet-stream' --limit-rate 100k -o /dev/null $U/up-abort$v &
  P=$!; sleep 0.7; kill $P; wait $P 2>/dev/null
done
echo "-- a client that gives up on the slow origin after 1 s"
$C --http2 --max-time 1 -o /dev/null -w ' h2 %{http_code} rc=' $U/slow-giveup-h2; echo $?
sleep 1
echo "-- metrics before the drain"
curl -s http://127.0.0.1:$((PORT+1))/metrics | grep '^loomgate_exchange_failures_total' 
echo "-- drain"
$C --http1.1 -o /dev/null -w ' stay-h1 %{http_code}\n' $U/slow-stay-h1 &
$C --http2 -o /dev/null -w ' stay-h2 %{http_code}\n' $U/slow-stay-h2 &
$C --http1.1 --max-time 1.5 -o /dev/null -w ' leave-h1 %{http_code}\n' $U/slow-leave-h1 &
LEAVE=$!
$C --http1.1 --data-binary @/tmp/combo11-10m.bin --limit-rate 50k -o /dev/null -w ' upload-h1 %{http_code}\n' $U/up-drain &
sleep 1
T0=$(date +%s.%N); kill -TERM $GW; wait $GW; RC=$?; T1=$(date +%s.%N)
echo "gateway exit $RC after $(echo "$T1 - $T0" | bc) s"
wait 2>/dev/null
echo "-- access lines"
grep '"loomgate.access"' gw-$NAME.log | python3 -c '
import sys, json
for l in sys.stdin:
    j = json.loads(l); print(j.get("url.path"), j.get("http.version"), j.get("http.response.status_code"), j.get("loomgate.failure"), "req.bytes=%s" % j.get("http.request.body.bytes"))'
grep -E "WARN|drain timeout|ERROR" gw-$NAME.log | cut -c1-300
