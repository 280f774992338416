#!/bin/bash
# drainrun.sh SIGNAL(yes|no): a gateway (sec.yaml), two h2c GETs of 3 s whose client closes at 1.0 s; with "yes" a
# SIGTERM at 0.5 s. Prints the exit, the drain lines and the access lines of /api/data?delay=3000 (none = lost).
rm -f /tmp/h2drain-gw-drain.rc
setsid nohup bash -c '/usr/lib/jvm/temurin-25-jdk-amd64/bin/java -jar /work/wt/h2drain/loomgate-cli/target/loomgate.jar serve --config /work/wt/h2drain/bench/results/2026-12-02-s58-h2drain/../2026-12-02-s58-combo9/hunt/sec.yaml > /tmp/h2drain-gw-drain.log 2>&1; echo "rc=$? at $(date -u +%T.%N)" > /tmp/h2drain-gw-drain.rc' < /dev/null > /dev/null 2>&1 &
for i in $(seq 1 80); do [ "$(curl -s -m 2 -o /dev/null -w "%{http_code}" http://127.0.0.1:29720/api/data)" = 200 ] && break; sleep 0.5; done
P=$(ss -ltnp | grep ':29720 ' | grep -o 'pid=[0-9]*' | cut -d= -f2)
rm -f /tmp/combo9-sent; python3 /work/wt/h2drain/bench/results/2026-12-02-s58-h2drain/../2026-12-02-s58-combo9/hunt/h2gone.py 29720 3000 1.0 & CP=$!; for i in $(seq 1 100); do [ -f /tmp/combo9-sent ] && break; sleep 0.1; done; sleep 0.3
if [ "$1" = yes ]; then echo "SIGTERM at $(date -u +%T.%N)"; kill -TERM $P; fi
wait $CP; sleep 3
if [ "$1" != yes ]; then kill -TERM $P; fi
for i in $(seq 1 40); do [ -f /tmp/h2drain-gw-drain.rc ] && break; sleep 0.5; done; cat /tmp/h2drain-gw-drain.rc
grep -v '"message"' /tmp/h2drain-gw-drain.log | grep -i "drain\|exiting" | cut -c1-160
echo "access lines for the two 3 s GETs: $(grep -c 'delay=3000' /tmp/h2drain-gw-drain.log)"
grep 'delay=3000' /tmp/h2drain-gw-drain.log | python3 -c "
import sys,json
for l in sys.stdin:
    d=json.loads(l); print({k:d.get(k) for k in ('@timestamp','message','http.version','loomgate.failure')})"
