#!/usr/bin/env python3
"""The W9 rows of w9-harness.sh's log, one line per harness run: build, load (1-min average before/after), requests/s
and CPU µs/req of HAProxy and Loomgate, and the ratio of the two CPU figures.   harness-table.py harness-w9.log"""
import re, sys
run = None
for line in open(sys.argv[1]):
    m = re.match(r"=== (\S+) (\S+)", line)
    if m:
        run = {"build": m.group(1).split("/")[-1], "t": m.group(2)}
        continue
    m = re.match(r"load (before|after):.*load average: ([\d.]+)", line)
    if m and run is not None:
        run[m.group(1)] = m.group(2)
        if m.group(1) == "after" and "loomgate" in run and "haproxy-t1" in run:
            h, g = run["haproxy-t1"], run["loomgate"]
            print(f"{run['t']} {run['build']:12s} load {run.get('before')}-{run['after']}  HAProxy {h[0]:>6s} rps {h[1]:>6.1f} us/req"
                  f"  Loomgate {g[0]:>6s} rps {g[1]:>6.1f} us/req  ratio {g[1] / h[1]:.2f}")
        continue
    if line.startswith("W9 ") and run is not None:
        cols = re.split(r"\s{2,}", line.strip())
        proxy = cols[2]
        rps = cols[3].split()[0]
        nums = [c for c in cols if re.fullmatch(r"[\d.]+", c)]
        run[proxy] = (rps, float(nums[-4]))
