#!/bin/bash
# bystander.sh <base> <seconds> [curl opts]: one small request a 0.5 s to each route, status and time
BASE=$1; END=$(( $(date +%s) + $2 )); shift 2
while [ $(date +%s) -lt $END ]; do
  for r in h1 h2c; do echo "$(date +%T) $r $(curl -sk "$@" --max-time 5 -o /dev/null -w '%{http_code} %{time_total}' $BASE/$r/bytes/100)"; done; sleep 0.5
done
