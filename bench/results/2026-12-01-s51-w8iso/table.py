#!/usr/bin/env python3
"""One line per proxy run of bench/harness-phases/run.sh (COUNT and JFR mode): the load, the time of exec to the end
of the first warm-up phase, the C1 and C2 threads' CPU (/proc, seconds) in the warm-up, in pre-3s + WINDOW and in the
whole run, the C2 and C1 compilations JFR counted at start / in the warm-up / in pre-3s + WINDOW / after, the queues'
peaks, deoptimisations, the code cache's free MB at the end and VmHWM.
    table.py w9-count-1.txt [more files]"""
import re
import sys

runs = []
for f in sys.argv[1:]:
    cur = None
    for line in open(f):
        m = re.match(r"^(\S+)\s+(\d+) (\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+%\s+([\d.]+)\s+[\d.]+\s+([\d.]+)\s+([\d.]+)\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+([\d.]+)$", line)
        if m:
            key = (f, m.group(1), m.group(2))
            if cur is None or cur["key"] != key:
                cur = {"key": key, "file": f.split("/")[-1], "proxy": m.group(1), "rd": m.group(2), "ph": {}, "cen": {},
                       "load": [], "t": {}, "rps": {}, "us": {}, "sites": [0], "insites": False}
                runs.append(cur)
            cur["ph"][m.group(3)] = (float(m.group(8)), float(m.group(9)))
            cur["t"][m.group(3)] = int(m.group(4))
            cur["rps"][m.group(3)] = int(m.group(6))
            cur["us"][m.group(3)] = float(m.group(7))
            cur["load"].append(float(m.group(10)))
            continue
        if cur is None:
            continue
        m = re.match(r"^\s{4}(start|warm-\d|pre-3s|WINDOW|more-\d)\s+\d+\s+(\d+)\s+(\d+)\s+([\d.]+)\s+\d+\s+(\d+)\s+\d+\s+[\d.]+\s+\S*\s+(\d+)\s+(\d+)", line)
        if m:
            cur["cen"][m.group(1)] = dict(c1=int(m.group(2)), c2=int(m.group(3)), deopt=int(m.group(5)),
                                          c1q=int(m.group(6)), c2q=int(m.group(7)))
            continue
        if "deoptimisation sites" in line:
            cur["insites"] = True
            continue
        if cur["insites"]:
            m = re.match(r"^\s+(\d+) \S+::\S+", line)
            if m:
                cur["sites"].append(int(m.group(1)))
                continue
            cur["insites"] = False
        m = re.search(r"CodeCache ([\d.]+) MB free", line)
        if m:
            cur["free"] = m.group(1)
        m = re.search(r"VmHWM: (\d+) MiB", line)
        if m:
            cur["hwm"] = m.group(1)
        m = re.search(r"total: C1 (\d+) \(([\d.]+) s\), C2 (\d+) \(([\d.]+) s", line)
        if m:
            cur["tot"] = (int(m.group(1)), int(m.group(3)))

def s(run, names, i):
    return sum(run["ph"].get(n, (0, 0))[i] for n in names)

def c(run, names, k):
    return sum(run["cen"].get(n, {}).get(k, 0) for n in names)

print("| file | proxy | rd | load | t warm-1 end | C1 s warm / pre+WIN / all | C2 s warm / pre+WIN / all | C2 comp start / warm / pre+WIN / after | C1 comp start / all | C1 q, C2 q peak | deopts | largest deopt site | WINDOW us/req | req/s warm-1 / warm-2 | code free MB | HWM MiB |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
plain = any("plain" in r["file"] for r in runs)
if plain:  # no h2 phases: the warm-up's first, second and the rest in their place
    print("(plain: the columns 'warm / pre+WIN / after' are warm-1 / warm-2 / warm-3 and later)")
for r in runs:
    warm = [p for p in r["ph"] if p.startswith("warm")]
    pw = ["pre-3s", "WINDOW"]
    more = [p for p in r["ph"] if p.startswith("more")]
    if plain:
        warm, pw, more = ["warm-1"], ["warm-2"], [p for p in r["ph"] if p.startswith("warm") and p not in ("warm-1", "warm-2")]
    allp = list(r["ph"])
    q1 = max((v["c1q"] for v in r["cen"].values()), default=0)
    q2 = max((v["c2q"] for v in r["cen"].values()), default=0)
    print(f"| {r['file']} | {r['proxy']} | {r['rd']} | {min(r['load']):.1f}-{max(r['load']):.1f} | {r['t'].get('warm-1', '')} | "
          f"{s(r, warm, 0):.1f} / {s(r, pw, 0):.1f} / {s(r, allp, 0):.1f} | {s(r, warm, 1):.1f} / {s(r, pw, 1):.1f} / {s(r, allp, 1):.1f} | "
          f"{c(r, ['start'], 'c2')} / {c(r, warm, 'c2')} / {c(r, pw, 'c2')} / {c(r, more, 'c2')} | "
          f"{c(r, ['start'], 'c1')} / {r.get('tot', (0, 0))[0]} | {q1}, {q2} | {c(r, list(r['cen']), 'deopt')} | {max(r['sites'])} | {r['us'].get('WINDOW', 0):.1f} | {r['rps'].get('warm-1', 0)} / {r['rps'].get('warm-2', 0)} | {r.get('free', '')} | {r.get('hwm', '')} |")
