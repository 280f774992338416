#!/bin/sh
# lbprobe.sh: the shared lb://svc upstream (B good on 29802, C answers 503 on /x*): CircuitBreaker route /c, Retry
# route /r; prints each answer, then the access lines' route/status/endpoint/failure and /routes' endpoints of svc
G=http://127.0.0.1:29810; A=http://127.0.0.1:29811
n0=$(wc -l < gw2.log)
for i in 1 2 3 4 5 6; do printf 'c%s %s\n' $i "$(curl -s -o /dev/null -w '%{http_code}' $G/c/x$i)"; done
for i in 1 2 3 4; do printf 'r%s %s\n' $i "$(curl -s -w ' %{http_code}' $G/r/x$i)"; done
sleep 0.5
tail -n +$((n0+1)) gw2.log | grep loomgate.access | python3 -c "
import sys,json
for l in sys.stdin:
    d=json.loads(l[l.find('{'):]); print(d['url.path'], d['http.response.status_code'], d.get('loomgate.route'), d.get('loomgate.endpoint'), d.get('loomgate.failure'))"
curl -s $A/routes | python3 -c "
import sys,json; d=json.load(sys.stdin)
for r in (d if isinstance(d,list) else d.get('routes',[])):
    if r.get('id') in ('svc-retry','svc-cb'): print(json.dumps(r)[:900])"
