#!/bin/bash
# probe.sh <gateway base url> <tag> [curl options]: every upstream × client body framing × body size × cut mode
BASE=$1; TAG=$2; shift 2
for up in ${UPS:-h1 h2c h2t}; do
 for size in 32k 200k; do
  f=/tmp/c8-$size; sha=$(sha256sum $f | cut -c1-16)
  modes="rst 503"; [ $up = h1 ] && modes="rst close 503"; [ $up != h1 ] && modes="rst goaway 503"
  for mode in $modes; do
   for fr in cl chunked h2cl h2nocl; do
    id=$TAG-$up-$size-$mode-$fr-$RANDOM
    url="$BASE/$up/x/$id?after=${AFTER:-16000}&mode=$mode"
    case $fr in
     cl) out=$(curl -sS --http1.1 "$@" --max-time 20 -o - -w ' [%{http_code} %{http_version}]' --data-binary @$f "$url" 2>&1) ;;
     chunked) out=$(curl -sS --http1.1 "$@" --max-time 20 -o - -w ' [%{http_code} %{http_version}]' -H 'Transfer-Encoding: chunked' --data-binary @$f "$url" 2>&1) ;;
     h2cl) out=$(curl -sS $H2 "$@" --max-time 20 -o - -w ' [%{http_code} %{http_version}]' --data-binary @$f "$url" 2>&1) ;;
     h2nocl) out=$(cat $f | curl -sS $H2 "$@" --max-time 20 -o - -w ' [%{http_code} %{http_version}]' -X POST -T - "$url" 2>&1) ;;
    esac
    echo "$up $size $mode $fr (sha $sha): $(echo $out | tr '\n' ' ' | cut -c1-200)"
   done
  done
 done
done
