#!/usr/bin/env python3
"""ratios.py LOG: Loomgate / HAProxy (haproxy-t1) per workload row in each harness run of a log that holds one or more
runs of ../shared/bench/run.sh (as bench/pairs/run.sh writes it). A run is named by the folder of its `cmd loomgate:`
line's executable and its turn in the log (`after#2`). Prints requests/s and CPU µs per request ratios, with both CPU
figures."""
import re
import sys

runs = {}      # run name -> {(workload, conns): {proxy: (requests/s, CPU µs per request)}}
order = []
current = None
cpu_col = None
for line in open(sys.argv[1]):
    m = re.match(r'^cmd loomgate: (\S+)/loomgate ', line) or re.match(r'^cmd loomgate: \S+ -jar (\S+)/', line)
    if m:
        folder = m.group(1).rstrip('/').split('/')[-1]
        current = f"{folder}#{sum(1 for o in order if o.rsplit('#', 1)[0] == folder) + 1}"
        order.append(current)
        runs[current] = {}
        continue
    if line.startswith('workload '):
        # the header names the columns; their values are separated by two or more spaces
        cpu_col = re.split(r'\s{2,}', line.strip()).index('CPU us/req')
        continue
    if current and cpu_col is not None and re.match(r'^W\d+\s', line):
        cols = re.split(r'\s{2,}', line.strip())
        workload, conns, proxy = cols[0], cols[1], cols[2]
        rps = float(cols[3].split()[0].replace(',', ''))
        runs[current].setdefault((workload, conns), {})[proxy] = (rps, float(cols[cpu_col]))
for name in order:
    for (workload, conns), by_proxy in runs[name].items():
        if 'loomgate' in by_proxy and 'haproxy-t1' in by_proxy:
            (r1, c1), (r2, c2) = by_proxy['loomgate'], by_proxy['haproxy-t1']
            print(f"{name:14s} {workload} {conns:7s} rps {r1 / r2:.2f}  cpu/req {c1 / c2:.2f}  ({c1} vs {c2})")
