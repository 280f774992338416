#!/usr/bin/env python3
"""top.py FILE.collapsed [mode] [N] [per]: mode self|incl|class|site. per: divide totals by this (requests)."""
import sys, collections, re
f = sys.argv[1]; mode = sys.argv[2] if len(sys.argv) > 2 else 'self'; n = int(sys.argv[3]) if len(sys.argv) > 3 else 30
per = float(sys.argv[4]) if len(sys.argv) > 4 else 0
agg = collections.Counter(); total = 0
for line in open(f):
    line = line.rstrip('\n')
    if not line: continue
    stack, _, cnt = line.rpartition(' ')
    c = int(cnt); total += c
    frames = stack.split(';')
    if mode == 'self':
        agg[frames[-1]] += c
    elif mode == 'incl':
        for fr in set(frames): agg[fr] += c
    elif mode == 'class':
        agg[frames[-1]] += c
    elif mode == 'site':
        # allocated class + the first frame of the gateway's own code (io/loomgate) from the top
        own = next((fr for fr in reversed(frames[:-1]) if fr.startswith('io/loomgate')), frames[-2] if len(frames) > 1 else '?')
        agg[frames[-1] + '  <-  ' + own] += c
print(f'total {total}' + (f', per request {total/per:.1f}' if per else ''))
for k, v in agg.most_common(n):
    print(f'{100.0*v/total:6.2f}%  ' + (f'{v/per:8.1f}  ' if per else '') + k)
