#!/usr/bin/env python3
"""Per Serial GC log (-Xlog:gc*): young and full collections, promoted (old gen growth across young GCs), pause ms,
GC threads' user+sys s (gc,cpu), old gen and heap capacity at the end. Usage: gcsum.py LOG..."""
import re, sys, collections
for path in sys.argv[1:]:
    young = full = 0; promoted_k = 0; pause_ms = 0.0; cpu = 0.0; causes = collections.Counter(); kind = {}
    old_cap = None; old_after = None
    for line in open(path):
        m = re.search(r'GC\((\d+)\) Pause (Young|Full) \((.*?)\) \S+->\S+\(\S+\) ([\d.]+)ms', line)
        if m:
            if m.group(2) == 'Young': young += 1
            else: full += 1; causes[m.group(3)] += 1
            pause_ms += float(m.group(4)); continue
        m = re.search(r'GC\((\d+)\) Pause (Young|Full)', line)
        if m and 'gc,start' in line: kind[m.group(1)] = m.group(2); continue
        m = re.search(r'GC\((\d+)\) Tenured: (\d+)K\((\d+)K\)->(\d+)K\((\d+)K\)', line)
        if m:
            if kind.get(m.group(1)) == 'Young': promoted_k += int(m.group(4)) - int(m.group(2))
            old_after, old_cap = int(m.group(4)), int(m.group(5)); continue
        m = re.search(r'User=([\d.]+)s Sys=([\d.]+)s', line)
        if m: cpu += float(m.group(1)) + float(m.group(2))
    print(f"{path}\tyoung {young}\tfull {full} {dict(causes)}\tpromoted {promoted_k/1024:.0f} MiB\tpauses {pause_ms:.0f} ms"
          f"\tgc cpu {cpu:.2f} s\told at end {old_after and old_after//1024} of {old_cap and old_cap//1024} MiB")
