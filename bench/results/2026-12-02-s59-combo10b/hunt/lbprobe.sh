#!/bin/sh
# lbprobe.sh LOG PREFIX-CB PREFIX-RETRY: the CircuitBreaker route and the Retry route of one shared lb:// upstream
# (one instance answers 503 on /x*); prints each answer, the access lines' route/status/endpoint/failure, and /routes.
L=$1; CB=$2; R=$3; P=${P:-29810}; G=http://127.0.0.1:$P; A=http://127.0.0.1:$((P+1))
n0=$(wc -l < $L)
for i in 1 2 3 4 5 6; do printf '%s%s %s\n' $CB $i "$(curl -s -o /dev/null -w '%{http_code}' $G/$CB/x$i)"; done
for i in 1 2 3 4; do printf '%s%s %s\n' $R $i "$(curl -s -w ' %{http_code}' $G/$R/x$i)"; done
sleep 0.5
tail -n +$((n0+1)) $L | grep loomgate.access | python3 -c "
import sys,json
for l in sys.stdin:
    d=json.loads(l[l.find('{'):]); print(d['url.path'], d['http.response.status_code'], d.get('loomgate.route'), d.get('loomgate.endpoint'), d.get('loomgate.failure'))"
curl -s $A/routes | python3 -c "
import sys,json; d=json.load(sys.stdin)
for r in (d if isinstance(d,list) else d.get('routes',[])):
    if r.get('id') in ('svc-retry','svc-cb','h2-retry','h2-cb'): print(json.dumps(r)[:900])"
