#!/usr/bin/env bash
# From phases.out: per shape, variant and round, over the h2 phases (pre-3s, WINDOW, more-*; not the HTTP/1.1
# warm-up): requests, the VM thread's CPU (SerialGC's and ParallelGC-1's collections; 0.1 s resolution per phase) per
# 100,000 requests, the process's CPU µs per request (a hint: the load is in the last column), load range.
awk '/^=== /{shape=$2} $1 ~ /^opt|^bare/ && NF>=15 && $3 !~ /^warm/ { k=shape" "$1" r"$2; n[k]+=$5; vm[k]+=$12;
  cpu[k]+=$8*$5; if(!(k in lo)||$15<lo[k])lo[k]=$15; if($15>hi[k])hi[k]=$15; if(!(k in ord)){ord[k]=++o; keys[o]=k} }
  END { for(i=1;i<=o;i++){k=keys[i]; printf "%-20s h2 requests %7d  VM thread %.1f s = %.2f s per 100k  process %.1f us/req  load %s-%s\n",
  k, n[k], vm[k], vm[k]*100000/n[k], cpu[k]/n[k], lo[k], hi[k]} }' "$@"
