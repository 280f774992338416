#!/bin/bash
# hunt4.sh: against gw on 29870 (h.yaml, TLS, redis limiter + Retry + CircuitBreaker): h2load POSTs of 4 KB over h2
# with a live reload in the middle (the rl route's burst 10 -> 20, file edit + POST /reload); then counts what
# h2load, the access log and the metrics say.
M=http://127.0.0.1:29871
curl -s $M/metrics > metrics-before.txt
( sleep 2; sed -i 's/burst-capacity: 10,/burst-capacity: 20,/' h-live.yaml; curl -s -XPOST $M/reload; echo " <- reload at $(date +%T.%N)" ) &
nice h2load -n 3000 -c 10 -m 10 -d /tmp/combo11-4k.bin https://localhost:29870/e/x 2>&1 | grep -E "requests:|status codes:|traffic:|finished in"
wait
curl -s $M/metrics > metrics-after.txt
