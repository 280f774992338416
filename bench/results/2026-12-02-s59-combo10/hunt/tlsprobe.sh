#!/bin/sh
# tlsprobe.sh PORT VERSIONFLAG: the security filters on a TLS listener (client-auth want): JwtAuth + limiter
# (principal) + Cors, ApiKeyAuth, IpFilter behind trusted-proxies 127.0.0.1, and a route matched on the
# X-Forwarded-Client-Cert the gateway sets from a verified client certificate
P=$1; V=$2; B=https://localhost:$P; C="--cacert /tmp/combo10-certs/ca.pem"; M="--cert /tmp/combo10-certs/cli.pem --key /tmp/combo10-certs/cli.key"
T=$(python3 tok2.py read 600 carol)
show() { grep -i -E '^(HTTP|www-authenticate|access-control-allow-origin|x-ratelimit-remaining)' | tr -d '\r' | tr '\n' '|'; echo; }
echo "preflight /j:"; curl -s $V $C -D - -o /dev/null -X OPTIONS -H 'Origin: https://app.example.com' -H 'Access-Control-Request-Method: GET' -H 'Access-Control-Request-Headers: authorization' $B/j/x | show
echo "/j no token:"; curl -s $V $C -D - -o /dev/null $B/j/x | show
for i in 1 2 3; do echo "/j carol $i:"; curl -s $V $C -D - -o /dev/null -H "Authorization: Bearer $T" $B/j/x | show; done
echo "/k no key:"; curl -s $V $C -D - -o /dev/null $B/k/x | show
echo "/k key:"; curl -s $V $C -D - -o /dev/null -H 'X-Api-Key: ops-key' $B/k/x | show
echo "/ip (peer 127.0.0.1, no XFF):"; curl -s $V $C -D - -o /dev/null $B/ip/x | show
echo "/ip XFF 10.1.2.3 (peer trusted):"; curl -s $V $C -D - -o /dev/null -H 'X-Forwarded-For: 10.1.2.3' $B/ip/x | show
echo "/ip XFF 10.1.2.3, 192.0.2.9:"; curl -s $V $C -D - -o /dev/null -H 'X-Forwarded-For: 10.1.2.3, 192.0.2.9' $B/ip/x | show
echo "/cert without a client certificate:"; curl -s $V $C -D - -o /dev/null $B/cert/x | show
echo "/cert with the client certificate:"; curl -s $V $C $M -D - -o /dev/null $B/cert/x | show
echo "/cert, forged XFCC, no certificate:"; curl -s $V $C -D - -o /dev/null -H 'X-Forwarded-Client-Cert: Hash=00;Subject="CN=alice-client"' $B/cert/x | show
