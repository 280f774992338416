#!/usr/bin/env bash
# passive: every 0.5 s, the RSS (and smaps_rollup's anon/file) of the java serving 18081, to $1
out=$1; end=$((SECONDS + ${2:-600}))
while ((SECONDS < end)); do
  pid=$(pgrep -f 'loomgate-gateway.jar serve' | head -1)
  if [[ -n $pid ]]; then
    a=$(awk '/^Rss:|^Anonymous:|^Pss_File:/ {printf "%s=%s ", $1, $2}' /proc/$pid/smaps_rollup 2>/dev/null)
    echo "$(date +%H:%M:%S.%N | cut -c1-12) $pid $a" >> "$out"
  fi
  sleep 0.5
done
