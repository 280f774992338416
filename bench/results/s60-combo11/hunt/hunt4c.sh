#!/bin/bash
# hunt4c.sh: SIGTERM to the gateway (29870) in the middle of an h2load run (TLS h2, 10 connections x 10 streams, 4 KB
# POSTs through Retry + CircuitBreaker + the redis limiter): what h2load counted against the access log's lines.
GW=$(cat /tmp/combo11-gwh.pid)
before=$(grep -c '"url.path":"/e/x"' gw-h.log)
( sleep 1.5; kill -TERM $GW; echo "SIGTERM at $(date +%T.%N)" ) &
nice h2load -n 50000 -c 10 -m 10 -d /tmp/combo11-4k.bin https://localhost:29870/e/x 2>&1 | grep -E "requests:|status codes:|finished in"
wait
while kill -0 $GW 2>/dev/null; do sleep 0.1; done
echo "gateway gone at $(date +%T.%N)"
after=$(grep -c '"url.path":"/e/x"' gw-h.log)
echo "access lines for /e/x during the run: $((after - before))"
grep '"url.path":"/e/x"' gw-h.log | tail -n $((after - before)) | python3 -c '
import sys,json
from collections import Counter
print(Counter((json.loads(l)["http.response.status_code"], json.loads(l).get("loomgate.failure")) for l in sys.stdin))'
grep -E "WARN|ERROR|drain" gw-h.log | tail -5 | cut -c1-250
