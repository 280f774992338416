#!/usr/bin/env python3
"""median wall / cpu per label from ab.sh output on stdin"""
import sys, statistics, collections
w=collections.defaultdict(list); c=collections.defaultdict(list)
for line in sys.stdin:
    if not line.startswith("round"): continue
    t=line.split(":",1)[1].split()
    i=0
    while i < len(t):
        if t[i+1]=="failed": i+=2; continue
        w[t[i]].append(int(t[i+1])); c[t[i]].append(int(t[i+2])); i+=3
for k in w:
    print(f"{k}: wall median {statistics.median(w[k]):.0f} ms ({min(w[k])}-{max(w[k])}), cpu median {statistics.median(c[k]):.0f} ms ({min(c[k])}-{max(c[k])}), n={len(w[k])}")
