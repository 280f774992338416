#!/bin/bash
# deoptimisations per file: total, and at the named sites (method:line), whole run
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/jfr
for f in "$@"; do
  $J print --events jdk.Deoptimization "$f" > /tmp/w9w-d.txt
  tot=$(grep -c "^jdk.Deoptimization" /tmp/w9w-d.txt)
  sites=$(awk '/method = /{m=$3} /lineNumber = /{print m":"$3}' /tmp/w9w-d.txt | grep -E "ThreadMarks.freeSlot|UpstreamAttempt.settle|UpstreamForwarder.proceed|ExchangeListener|ProxyHandler.end" | sort | uniq -c | tr '\n' ';')
  echo "$(basename $f): deopts $tot; $sites"
done
