#!/usr/bin/env python3
"""Per A/B pair (same file and round, run one after the other) of bench/harness-phases COUNT runs: the C2 thread's
CPU (s, /proc) in pre-3s + WINDOW, in WINDOW alone and in the whole run, the C2 compilations JFR started in pre-3s +
WINDOW, the WINDOW's CPU per request and, for plain, the first two warm-up phases' requests/s.
    pairs.py A B file...      (A, B: proxy names in the files, e.g. base opt1)"""
import re
import sys

a, b = sys.argv[1], sys.argv[2]
rows = {}
for f in sys.argv[3:]:
    cur = None
    for line in open(f):
        m = re.match(r"^(\S+)\s+(\d+) (\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+%\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+([\d.]+)$", line)
        if m:
            key = (f.split("/")[-1], m.group(2), m.group(1))
            r = rows.setdefault(key, {"ph": {}, "cen": {}, "load": []})
            r["ph"][m.group(3)] = dict(n=int(m.group(5)), rps=int(m.group(6)), us=float(m.group(7)),
                                       nojit=float(m.group(8)), c2=float(m.group(10)))
            r["load"].append(float(m.group(11)))
            cur = r
            continue
        m = re.match(r"^\s{4}(start|warm-\d+|pre-3s|WINDOW|more-\d)\s+\d+\s+(\d+)\s+(\d+)\s", line)
        if m and cur is not None:
            cur["cen"][m.group(1)] = int(m.group(3))
print(f"| file | rd | load {a} / {b} | C2 s pre+WIN {a} / {b} | C2 s WINDOW | C2 s all | C2 comp pre+WIN | WINDOW us/req | WINDOW us/req without JIT | req/s warm-1 | req/s warm-2 |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
lower = win_lower = n = 0
for (f, rd, p), r in sorted(rows.items()):
    if p != a or (f, rd, b) not in rows:
        continue
    s = rows[(f, rd, b)]
    def c2(x, names): return sum(x["ph"].get(k, {}).get("c2", 0) for k in names)
    pw = ["pre-3s", "WINDOW"]
    if "plain" in f:
        pw = ["warm-2"]
    n += 1
    lower += round(c2(s, pw), 1) < round(c2(r, pw), 1)
    win_lower += round(c2(s, ["WINDOW"]), 1) < round(c2(r, ["WINDOW"]), 1)
    g = lambda x, ph, k: x["ph"].get(ph, {}).get(k, 0)
    print(f"| {f} | {rd} | {min(r['load']):.0f}-{max(r['load']):.0f} / {min(s['load']):.0f}-{max(s['load']):.0f} | "
          f"{c2(r, pw):.1f} / {c2(s, pw):.1f} | {c2(r, ['WINDOW']):.1f} / {c2(s, ['WINDOW']):.1f} | "
          f"{c2(r, r['ph']):.1f} / {c2(s, s['ph']):.1f} | "
          f"{sum(r['cen'].get(k, 0) for k in pw)} / {sum(s['cen'].get(k, 0) for k in pw)} | "
          f"{g(r, 'WINDOW', 'us'):.1f} / {g(s, 'WINDOW', 'us'):.1f} | {g(r, 'WINDOW', 'nojit'):.1f} / {g(s, 'WINDOW', 'nojit'):.1f} | "
          f"{g(r, 'warm-1', 'rps')} / {g(s, 'warm-1', 'rps')} | {g(r, 'warm-2', 'rps')} / {g(s, 'warm-2', 'rps')} |")
print(f"\n{b}'s C2 CPU in pre-3s + WINDOW (plain: warm-2) lower than {a}'s in {lower} of {n} pairs; in WINDOW alone in {win_lower} of {n}")
