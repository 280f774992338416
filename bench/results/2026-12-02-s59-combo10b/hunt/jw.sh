#!/bin/sh
# jw.sh LABEL KID...: one request per KID signed with that key to the JwksKeys route /jw, answer and challenge
L=$1; shift
for k in "$@"; do T=$(python3 rstok.py $k alice-$k)
  printf '%s %s %s: %s\n' "$(date -u +%T.%N | cut -c1-12)" "$L" "$k" "$(curl -s -o /dev/null -D - -H "Authorization: Bearer $T" http://127.0.0.1:29810/jw/x | grep -i -E '^(HTTP|www-auth|retry-after)' | tr -d '\r' | tr '\n' '|')"
done
