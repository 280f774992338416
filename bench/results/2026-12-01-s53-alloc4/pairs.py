#!/usr/bin/env python3
"""pairs.py RUN...: the windows of each run (alloc-RUN-sites.txt, alloc-RUN-sites53.txt) as base/branch pairs per
shape, in the order they ran: time, load, sampled total, GC-log total and this branch's sites, one markdown row each."""
import re, sys
from collections import defaultdict
rows = []
for run in sys.argv[1:]:
    heads = {}
    for line in open(f'alloc-{run}-sites.txt'):
        m = re.match(r'(\S+) (\S+) (\S+): (\d+) requests, GC log: (\d+) B/request, CPU [\d.]+ us/request \(load ([\d.]+)\)', line)
        if m:
            heads[(m[1], m[2], m[3])] = (int(m[5]), m[6])
    wins = defaultdict(list)
    for line in open(f'alloc-{run}-sites53.txt'):
        m = re.match(r'(\S+) (\S+) (\S+): profiled \d+ requests: total (\d+) B/request; frame (\d+), table (\d+), map (\d+)', line)
        t, shape, jar = m[1], m[2], m[3]
        gc, load = heads[(t, shape, jar)]  # the same summary's first line: the same time
        wins[shape].append((t, jar, load, int(m[4]), gc, int(m[5]), int(m[6]), int(m[7])))
    for shape, ws in wins.items():
        bases = [w for w in ws if w[1] == 'base']
        others = [w for w in ws if w[1] != 'base']
        for b, o in zip(bases, others):
            rows.append((shape, run, b, o))
order = {'w8': 0, 'w9': 1, 'w8h2': 2}
for shape, run, b, o in sorted(rows, key=lambda r: (order[r[0]], r[2][0])):
    d = o[3] - b[3]
    print(f'| {shape} | {run} {b[0][:5]}-{o[0][:5]} ({b[2]} / {o[2]}) | {b[3]:,} / {b[4]:,} / {b[5]} + {b[6]} + {b[7]} '
          f'| {o[1]}: {o[3]:,} / {o[4]:,} / {o[5]} + {o[6]} + {o[7]} | {d:+,} | {(o[5]+o[6]+o[7]) - (b[5]+b[6]+b[7]):+} |')
