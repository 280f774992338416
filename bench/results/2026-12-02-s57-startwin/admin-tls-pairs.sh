#!/usr/bin/env bash
# usage: admin-tls-pairs.sh PAIRS  — alternates the jar with the admin listener's TLS warm-up (warm) and without (cold)
# (java -jar, no AOT cache, the same flags), a plain main listener and admin.ssl: the start line's own "started in N ms",
# then at once the first HTTPS probe of the admin listener (curl's total and TLS-handshake times).
d=/tmp/startwin-admintls
for ((p = 1; p <= ${1:-5}; p++)); do
  order=${ORDER:-"warm cold"}; (( p % 2 == 0 )) && order=$(tr " " "\n" <<<"$order" | tac | tr "\n" " ")
  for way in $order; do
    log=$d/$way-$p.log
    /usr/lib/jvm/temurin-25-jdk-amd64/bin/java -Xmx128m -jar /tmp/startwin-jars/$way/loomgate.jar serve \
      --config $d/admin-tls.yaml --no-watch > $log 2>&1 &
    pid=$!
    for i in $(seq 1 3000); do grep -q "listening on" $log 2>/dev/null && break; sleep 0.01; done
    probe=$(curl -sk -o /dev/null -w "%{http_code} total %{time_total} s, handshake done at %{time_appconnect} s" \
      https://127.0.0.1:29732/health/ready)
    started=$(grep -o "started in [0-9]* ms" $log)
    echo "pair $p $way: $started; first admin probe $probe; load $(cut -d' ' -f1 /proc/loadavg)"
    kill -TERM $pid; wait $pid
  done
done
