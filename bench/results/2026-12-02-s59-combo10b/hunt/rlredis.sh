#!/bin/sh
# rlredis.sh LABEL: the Redis-backed limiter keyed by principal (/rj, replenish 1/s, burst 2): alice x4, bob x1, no token
L=$1; T=$(python3 tok2.py read 600 alice); T2=$(python3 tok2.py read 600 bob)
r() { curl -s -o /dev/null -w '%{http_code} ' "$@" http://127.0.0.1:29810/rj/x; }
echo "$L alice: $(r -H "Authorization: Bearer $T")$(r -H "Authorization: Bearer $T")$(r -H "Authorization: Bearer $T")$(r -H "Authorization: Bearer $T")bob: $(r -H "Authorization: Bearer $T2")none: $(r)h2c alice: $(r --http2-prior-knowledge -H "Authorization: Bearer $T")"
