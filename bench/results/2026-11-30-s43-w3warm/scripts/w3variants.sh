#!/usr/bin/env bash
# W3 by the harness, the gateway as the launcher runs it (/tmp/w3base), variants alternated: NAME=OPTS (java options) or
# NAME=env:VAR=VALUE (an environment variable); ROUNDS rounds
R=/work/wt/w3warm/bench/results/2026-11-30-s43-w3warm/$1; shift
mkdir -p $R
for r in $(seq ${ROUNDS:-2}); do
  for v in "$@"; do
    name=${v%%=*}; opts=${v#*=}; envp=""
    [[ $opts == env:* ]] && { envp="env ${opts#env:}"; opts=""; }
    [[ $opts == default ]] && opts=""
    /tmp/w3watch.sh $R/$name.r$r.rss.txt 150 & W=$!
    echo "$(date +%T) $name r$r load $(cut -d' ' -f1-3 /proc/loadavg)" >> $R/runs.txt
    LOOMGATE_JAVA_OPTS="$opts" PROXY_NAME=loomgate PROXY_CMD="$envp /tmp/w3base/loomgate serve --config /tmp/w3base/bench/configs/gateway-bench.yaml" \
      WORKLOADS="W3" PROXIES="${PEERS:-}loomgate" REPEAT=1 WARM_MAX=60 RESULTS=$R/$name.r$r /work/shared/bench/run.sh > $R/$name.r$r.log 2>&1
    kill $W
    echo "$(date +%T) $name r$r: $(grep -h 'opened=' $R/$name.r$r.log | tr '\n' ' ') load $(cut -d' ' -f1-3 /proc/loadavg)" >> $R/runs.txt
  done
done
