#!/bin/bash
# hunt4b.sh: bodies of each shape through the 'echo' route (Retry + CircuitBreaker + redis limiter), the redis
# limiter route over h1 (h2load --h1), and the failing route's Retry + CircuitBreaker.
U=https://localhost:29870
C="curl -sk"
echo "-- bodies (the origin answers 'ok METHOD PATH BYTES')"
$C --http2 -X POST --data-binary '' -w ' [%{http_code} %{http_version}]\n' $U/e/empty-h2
$C --http1.1 -X POST --data-binary '' -w ' [%{http_code} %{http_version}]\n' $U/e/empty-h1
$C --http1.1 -H 'Transfer-Encoding: chunked' --data-binary @/tmp/combo11-10m.bin -w ' [%{http_code} %{http_version}]\n' $U/e/chunked-h1
$C --http2 --data-binary @/tmp/combo11-10m.bin -w ' [%{http_code} %{http_version}]\n' $U/e/large-h2
nghttp -d /tmp/combo11-10m.bin $U/e/large-nghttp; echo " [nghttp rc=$?]"
echo "-- redis limiter, 40 requests over h1 (burst 20 after the reload, 5/s)"
nice h2load --h1 -n 40 -c 1 $U/rl/x 2>&1 | grep -E "status codes:|requests:"
redis-cli -p 29805 --scan --pattern 'request_rate_limiter*'
echo "-- failing route: Retry=2 on 503, breaker min 4 calls"
for i in 1 2 3 4 5 6; do $C -o /dev/null -w "%{http_code} " $U/f/x$i; done; echo
