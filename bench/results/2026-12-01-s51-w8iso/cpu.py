#!/usr/bin/env python3
"""Once warm, per run of run-w8.sh: CPU µs per request over WINDOW + more-1..3 (requests-weighted: the process's CPU
over those phases / their requests), the same without the compiler threads (-JIT), the carriers' (the virtual
threads' work), the C2 thread's seconds in warm-1..3 and in pre-3s..more-3 (/proc), the load over the run; then per
round the three builds side by side (order of the run: head, nosplit, notrain).
    cpu.py w8-count-*.txt"""
import re, sys, collections
runs = collections.OrderedDict()
for f in sys.argv[1:]:
    for line in open(f):
        m = re.match(r"^(\S+)\s+(\d+) (\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+%\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+[\d.]+\s+([\d.]+)$", line)
        if m:
            r = runs.setdefault((f.split("/")[-1], int(m.group(2)), m.group(1)), {})
            r[m.group(3)] = dict(n=int(m.group(5)), us=float(m.group(7)), nojit=float(m.group(8)), c2=float(m.group(10)),
                                 car=float(m.group(12)), load=float(m.group(13)))
def agg(r, names, k):
    n = sum(r[p]["n"] for p in names if p in r)
    return sum(r[p][k] * r[p]["n"] for p in names if p in r) / n if n else 0
W = ["WINDOW", "more-1", "more-2", "more-3"]
print("| file | rd | build | load | us/req WINDOW+more | -JIT | carriers | C2 s warm-1..3 / pre-3s..more-3 |")
print("|---|---|---|---|---|---|---|---|")
for (f, rd, p), r in runs.items():
    loads = [v["load"] for v in r.values()]
    warm = sum(v["c2"] for k, v in r.items() if k.startswith("warm"))
    after = sum(v["c2"] for k, v in r.items() if not k.startswith("warm"))
    print(f"| {f} | {rd} | {p.replace('base', '')} | {min(loads):.1f}-{max(loads):.1f} | {agg(r, W, 'us'):.1f} | "
          f"{agg(r, W, 'nojit'):.1f} | {agg(r, W, 'car'):.1f} | {warm:.1f} / {after:.1f} |")
