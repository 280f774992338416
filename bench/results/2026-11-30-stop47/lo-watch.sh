#!/usr/bin/env bash
# prints UTC time and the cumulative TcpExt ListenOverflows / ListenDrops once a second
while true; do
  awk -v t="$(date -u +%T)" '/^TcpExt:/ {if (!h) {for(i=1;i<=NF;i++) n[i]=$i; h=1} else {for(i=1;i<=NF;i++) if (n[i]=="ListenOverflows"||n[i]=="ListenDrops") printf "%s %s=%s ", t, n[i], $i; print ""}}' /proc/net/netstat
  sleep 1
done
