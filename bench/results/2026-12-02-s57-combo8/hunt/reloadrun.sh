#!/bin/bash
# reloadrun.sh <port> <tls: none|jdk|conscrypt>: traffic of every kind in flight through a gateway serving
# genyaml.sh's generation 1, a reload to generation 2 (route moved h1 -> h2c, Retry, CircuitBreaker, limiter added),
# then a file with a misspelt key (refused); what every exchange got, and which generation answered it (X-Gen).
port=$1 tls=$2 F=/tmp/c8-rl/$port.yaml O=/tmp/c8-rl/$port; mkdir -p $O; rm -f $O/*
if [ $tls = none ]; then B=http://127.0.0.1:$port; H1=--http1.1; H2=--http2-prior-knowledge; WS=plain; else B=https://localhost:$port; H1=--http1.1; H2=--http2; WS=tls; fi
sha=$(sha256sum /tmp/c8-1m | cut -c1-16)
c() { curl -sk --max-time 30 "$@"; }
echo "== $port $tls $(uptime | sed 's/.*load/load/')"
c $H1 -D $O/slow1.h -o /dev/null "$B/be/api/data?delay=5000" & 
c $H2 -D $O/slow2.h -o /dev/null "$B/be/api/data?delay=5000" &
c $H1 --limit-rate 200k -D $O/up1.h -T /tmp/c8-1m -X POST "$B/be/echo" -o $O/up1.b &
c $H2 --limit-rate 200k -D $O/up2.h -T /tmp/c8-1m -X POST "$B/be/echo" -o $O/up2.b &
c $H1 -D $O/sse1.h -o $O/sse1.b "$B/be/sse?events=16&interval=400" &
c $H2 -D $O/sse2.h -o $O/sse2.b "$B/be/sse?events=16&interval=400" &
python3 ws.py $port $WS 7 > $O/ws.out 2>&1 &
[ $tls = none ] && DRIP=0.4 python3 grpcprobe.py 127.0.0.1 $port /g.Svc/M/drip-$port-$RANDOM 200000 > $O/grpc.out 2>&1 &
sleep 2
./genyaml.sh 2 $port $tls > $F.new && mv $F.new $F
echo "reload 2: $(curl -s -XPOST -H 'Content-Type: application/json' 127.0.0.1:$((port+1))/reload | tr -d '\n' | cut -c1-200)"
echo "new h1: $(c $H1 -D - -o /dev/null "$B/be/api/data?delay=0" | grep -i -E '^HTTP|x-gen|^via' | tr -d '\r' | tr '\n' ' ')"
echo "new h2: $(c $H2 -D - -o /dev/null "$B/be/api/data?delay=0" | grep -i -E '^HTTP|x-gen|^via' | tr -d '\r' | tr '\n' ' ')"
[ $tls = none ] && echo "new grpc: $(python3 grpcprobe.py 127.0.0.1 $port /g.Svc/M/new-$RANDOM 1000 | cut -c1-250)"
sleep 1
./genyaml.sh bad $port $tls > $F.new && mv $F.new $F
echo "reload bad: $(curl -s -XPOST -H 'Content-Type: application/json' 127.0.0.1:$((port+1))/reload | tr -d '\n' | cut -c1-300)"
echo "after bad h1: $(c $H1 -D - -o /dev/null "$B/be/api/data?delay=0" | grep -i -E '^HTTP|x-gen' | tr -d '\r' | tr '\n' ' ')"
wait
for x in slow1 slow2 sse1 sse2 up1 up2; do echo "$x: $(grep -i -E '^HTTP|x-gen' $O/$x.h | tr -d '\r' | tr '\n' ' ') $( [ -f $O/$x.b ] && ( [[ $x == up* ]] && echo "body $(wc -c < $O/$x.b) B sha $(sha256sum $O/$x.b | cut -c1-16) (sent $sha)" || echo "events $(grep -c '^data:' $O/$x.b)"))"; done
echo "ws: $(head -1 $O/ws.out) ... $(tail -2 $O/ws.out | tr '\n' ' ')"
[ $tls = none ] && echo "grpc: $(cat $O/grpc.out | cut -c1-300)"
./genyaml.sh 1 $port $tls > $F.new && mv $F.new $F
echo "back to 1: $(curl -s -XPOST -H 'Content-Type: application/json' 127.0.0.1:$((port+1))/reload | tr -d '\n' | cut -c1-200)"
