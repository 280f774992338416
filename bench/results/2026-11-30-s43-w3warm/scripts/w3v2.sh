#!/usr/bin/env bash
# the harness, one proxy per run alternated: variants NAME=DIR[:JAVA_OPTS]; WL (workloads, default W3), ROUNDS, PEERS
R=/work/wt/w3warm/bench/results/2026-11-30-s43-w3warm/$1; shift
mkdir -p $R
for r in $(seq ${ROUNDS:-2}); do
  for v in "$@"; do
    name=${v%%=*}; rest=${v#*=}; d=${rest%%:*}; opts=""; [[ $rest == *:* ]] && opts=${rest#*:}
    /tmp/w3watch.sh $R/$name.r$r.rss.txt 400 & W=$!
    echo "$(date +%T) $name r$r ($d, '$opts') load $(cut -d' ' -f1-3 /proc/loadavg)" >> $R/runs.txt
    LOOMGATE_JAVA_OPTS="$opts" PROXY_NAME=loomgate PROXY_CMD="$d/loomgate serve --config $d/bench/configs/gateway-bench.yaml" \
      PROXY_CMD_TLS="$d/loomgate serve --config $d/bench/configs/gw-tls-conscrypt.yaml" \
      PROXY_CMD_H2C="$d/loomgate serve --config $d/bench/configs/gw-h2c.yaml" \
      WORKLOADS="${WL:-W3}" PROXIES="${PEERS:-}loomgate" REPEAT=1 WARM_MAX=60 RESULTS=$R/$name.r$r /work/shared/bench/run.sh > $R/$name.r$r.log 2>&1
    kill $W
    grep -h "AOT cache" $R/$name.r$r/logs/loomgate*.log | head -2 | cut -c1-200 >> $R/runs.txt
    echo "$(date +%T) $name r$r: $(grep -hE 'opened=|warm-up [0-9]|rps=' $R/$name.r$r.log | tr '\n' ' ') load $(cut -d' ' -f1-3 /proc/loadavg)" >> $R/runs.txt
  done
done
