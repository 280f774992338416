#!/usr/bin/env python3
# per run: the harness's W3 (before -> held at READY+2 s), and from the 0.5 s RSS samples: the peak while held and the
# RSS settled (4 s before the hold ended, after the JVM's trims), each per connection over the harness's 'before'
import re, sys, glob, os
def secs(t): h, m, s = t.split(':'); return int(h) * 3600 + int(m) * 60 + float(s)
for d in sys.argv[1:]:
    for log in sorted(glob.glob(d + '/*.log'), key=os.path.getmtime):
        name = os.path.basename(log)[:-4]
        m = re.search(r'\[(\d\d:\d\d:\d\d)\]\s+opened=(\d+) .* rss (\d+)kB -> (\d+)kB \(([\d.]+) kB/conn\)', open(log).read())
        if not m: continue
        tend, n, before, held, kb = secs(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4)), m.group(5)
        rows = []
        for line in open(d + '/' + name + '.rss.txt'):
            p = line.split()
            rows.append((secs(p[0]), int(p[2].split('=')[1])))
        win = [r for t, r in rows if tend - 12 <= t <= tend - 1.5]
        settled = min(rows, key=lambda x: abs(x[0] - (tend - 4)))[1]
        peak = max(win) if win else 0
        print(f"{name:12s} {m.group(1)} harness {kb} KB ({before//1024}->{held//1024} MB)  peak {(peak-before)/n:.2f}  settled {(settled-before)/n:.2f} KB/conn")
