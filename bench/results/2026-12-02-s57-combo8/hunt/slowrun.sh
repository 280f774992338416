#!/bin/bash
# slowrun.sh <tag> <admin port> <base url> <tls 0|1> <h1|h2> <route> [curl opts for the bystander]
tag=$1 adm=$2 base=$3 tls=$4 proto=$5 route=$6; shift 6
port=${base##*:}
echo "== $tag $(uptime | sed 's/.*load/load/')"
./bystander.sh $base 14 "$@" > /tmp/c8-by.txt &
B=$!
python3 slowread.py 127.0.0.1 $port $tls $proto /$route/bytes/200000000 10 &
S=$!
sleep 4; echo "pool at 4 s:"; curl -s 127.0.0.1:$adm/metrics | grep -E '^loomgate_upstream_connections' | grep -v ' 0.0$'
wait $S; wait $B
echo "bystander: $(awk '{print $3}' /tmp/c8-by.txt | sort | uniq -c | tr '\n' ' ') max time $(awk '{print $4}' /tmp/c8-by.txt | sort -n | tail -1)"
echo "pool after:"; curl -s 127.0.0.1:$adm/metrics | grep -E '^loomgate_upstream_connections' | grep -v ' 0.0$'
