#!/bin/sh
# corsprobe.sh CURLFLAGS BASE: the Cors + JwtAuth + RequestRateLimiter(principal) route /cj and Cors + ApiKeyAuth /ck
F="$1"; B="$2"; T=$(python3 tok2.py read 600 alice); T2=$(python3 tok2.py read 600 bob)
O='Origin: https://app.example.com'
show() { grep -i -E '^(HTTP|access-control|www-authenticate|vary|x-ratelimit-remaining|retry-after)' | tr -d '\r' | tr '\n' '|'; echo; }
echo "preflight cj (no credentials):"; curl -s $F -D - -o /dev/null -X OPTIONS -H "$O" -H 'Access-Control-Request-Method: GET' -H 'Access-Control-Request-Headers: authorization' $B/cj/x | show
echo "preflight ck (no key):"; curl -s $F -D - -o /dev/null -X OPTIONS -H "$O" -H 'Access-Control-Request-Method: GET' -H 'Access-Control-Request-Headers: x-api-key' $B/ck/x | show
echo "preflight cj, bad origin:"; curl -s $F -D - -o /dev/null -X OPTIONS -H 'Origin: https://evil.example' -H 'Access-Control-Request-Method: GET' $B/cj/x | show
echo "actual cj no token:"; curl -s $F -D - -o /dev/null -H "$O" $B/cj/x | show
echo "actual ck no key:"; curl -s $F -D - -o /dev/null -H "$O" $B/ck/x | show
echo "actual ck key:"; curl -s $F -D - -o /dev/null -H "$O" -H 'X-Api-Key: ops-key' $B/ck/x | show
for i in 1 2 3 4; do echo "actual cj alice $i:"; curl -s $F -D - -o /dev/null -H "$O" -H "Authorization: Bearer $T" $B/cj/x | show; done
echo "actual cj bob:"; curl -s $F -D - -o /dev/null -H "$O" -H "Authorization: Bearer $T2" $B/cj/x | show
echo "OPTIONS cj without ACR-Method (not a preflight), no token:"; curl -s $F -D - -o /dev/null -X OPTIONS -H "$O" $B/cj/x | show
