#!/usr/bin/env python3
"""Per GC log (-Xlog:gc*,gc+age=trace; Serial or Parallel): young and full collections, bytes promoted (the old
generation's growth across each young collection: total, mean and largest per collection), the survivors' content
after each young collection (mean, largest), the tenuring thresholds chosen, pauses (young: sum, mean, largest;
full: sum, largest, causes), the collector's CPU (gc,cpu User+Sys) and the old generation at the end.
Usage: gcsum.py [-n REQUESTS] LOG...   (-n: also per 100,000 requests)"""
import re, sys, collections, statistics
args = sys.argv[1:]; reqs = None
if args and args[0] == '-n': reqs = int(args[1]); args = args[2:]
for path in args:
    young = full = 0; promoted = []; ypause = []; fpause = []; cpu = 0.0; causes = collections.Counter(); kind = {}
    surv = []; thresholds = collections.Counter(); old_cap = old_after = None; old_first = None; old_max = 0
    for line in open(path, errors='replace'):
        m = re.search(r'GC\((\d+)\) Pause (Young|Full) \((.*?)\) \S+->\S+\(\S+\) ([\d.]+)ms', line)
        if m:
            if m.group(2) == 'Young': young += 1; ypause.append(float(m.group(4)))
            else: full += 1; causes[m.group(3)] += 1; fpause.append(float(m.group(4)))
            continue
        m = re.search(r'GC\((\d+)\) Pause (Young|Full)', line)
        if m and 'gc,start' in line: kind[m.group(1)] = m.group(2); continue
        m = re.search(r'GC\((\d+)\) (?:Tenured|ParOldGen): (\d+)K\((\d+)K\)->(\d+)K\((\d+)K\)', line)
        if m:
            if old_first is None: old_first = int(m.group(2))
            if kind.get(m.group(1)) == 'Young': promoted.append(int(m.group(4)) - int(m.group(2)))
            old_after, old_cap = int(m.group(4)), int(m.group(5)); old_max = max(old_max, int(m.group(4))); continue
        m = re.search(r'GC\((\d+)\) (?:DefNew|PSYoungGen): .*From: (\d+)K\(\d+K\)->(\d+)K', line)
        if m and kind.get(m.group(1)) == 'Young': surv.append(int(m.group(3))); continue
        m = re.search(r'new threshold (\d+)', line)
        if m: thresholds[int(m.group(1))] += 1; continue
        m = re.search(r'User=([\d.]+)s Sys=([\d.]+)s', line)
        if m: cpu += float(m.group(1)) + float(m.group(2))
    mib = lambda k: k / 1024
    p = sum(promoted)
    out = [path.split('/')[-1], f"young {young}", f"full {full} {dict(causes)}",
           f"promoted {mib(p):.0f} MiB (mean {mib(p / max(young, 1)):.2f}, max {mib(max(promoted, default=0)):.2f})",
           f"survivors after (mean {mib(statistics.mean(surv)) if surv else 0:.2f}, max {mib(max(surv, default=0)):.2f} MiB)",
           f"thresholds {dict(sorted(thresholds.items()))}",
           f"young pauses {sum(ypause):.0f} ms (mean {statistics.mean(ypause) if ypause else 0:.2f}, max {max(ypause, default=0):.1f})",
           f"full pauses {sum(fpause):.0f} ms (max {max(fpause, default=0):.1f})",
           f"gc cpu {cpu:.2f} s", f"old max {old_max // 1024} end {old_after and old_after // 1024} of {old_cap and old_cap // 1024} MiB"]
    if reqs:
        f = 100000 / reqs
        out.append(f"per 100k req: young {young * f:.1f} full {full * f:.2f} promoted {mib(p) * f:.1f} MiB gc cpu {cpu * f:.2f} s")
    print('\t'.join(out))
