#!/usr/bin/env python3
"""Every run of every series, per build in run order: the W8 windows' CPU µs/request and the carriers', bytes per
request, C2 compilations (all / io.loomgate), deoptimisations, io.loomgate C2 code bytes; and per round which build
was cheapest. summary.py N...  (reads w8-count-N.txt and hot-N.txt beside it)"""
import os, re, subprocess, sys, collections
here = os.path.dirname(os.path.abspath(__file__))
per = collections.defaultdict(lambda: collections.defaultdict(list)); rounds = collections.defaultdict(dict)
for n in sys.argv[1:]:
    cpu = subprocess.run([sys.executable, f"{here}/cpu.py", f"{here}/w8-count-{n}.txt"], capture_output=True, text=True).stdout
    for line in cpu.splitlines()[2:]:
        c = [x.strip() for x in line.strip("|").split("|")]
        if float(c[4]) == 0: continue
        per[c[2]]["us"].append(float(c[4])); per[c[2]]["car"].append(float(c[6])); per[c[2]]["load"].append(c[3])
        rounds[(n, c[1])][c[2]] = float(c[4])
    for line in open(f"{here}/hot-{n}.txt"):
        m = re.match(r"^\| base(\w+)-(\d) \| \d+ \| \d+ \| ([\d,]+) \| (\d+) / (\d+) \| ([\d,]+) \| (\d+) \| (\d+) / (\d+) \|", line)
        if m:
            b = per[m.group(1)]
            b["Breq"].append(int(m.group(3).replace(",", ""))); b["c2"].append(int(m.group(4))); b["c2ours"].append(int(m.group(5)))
            b["code"].append(int(m.group(6).replace(",", ""))); b["c2warm"].append(int(m.group(7)))
            b["deopt"].append(int(m.group(8))); b["deoptwarm"].append(int(m.group(9)))
mean = lambda v: sum(v) / len(v) if v else 0
for b in ("head", "nosplit", "notrain"):
    print(f"## {b}")
    for k, v in per[b].items():
        print(f"  {k:9s} " + ", ".join(str(x) for x in v) + ("" if k == "load" else f"   (mean {mean(v):,.1f})"))
print("## per round, W8 windows' µs/request (cheapest first)")
for (n, rd), d in sorted(rounds.items()):
    print(f"  series {n} round {rd}: " + "  ".join(f"{k} {v}" for k, v in sorted(d.items(), key=lambda kv: kv[1])))
for a in ("nosplit", "notrain"):
    pairs = [(d["head"], d[a]) for d in rounds.values() if "head" in d and a in d]
    print(f"  {a} above head in {sum(y > x for x, y in pairs)} of {len(pairs)} rounds; "
          f"mean {mean([y for _, y in pairs]):.1f} vs head {mean([x for x, _ in pairs]):.1f}")
print("## counts, head against each other build run by run (same series, same round)")
for a in ("nosplit", "notrain"):
    for k in ("Breq", "c2", "c2ours", "code", "c2warm", "deopt", "deoptwarm", "car"):
        h, o = per["head"][k], per[a][k]
        n = min(len(h), len(o))
        print(f"  {k:9s} {a}: above head in {sum(o[i] > h[i] for i in range(n))}, below in "
              f"{sum(o[i] < h[i] for i in range(n))} of {n}; mean {mean(o[:n]):,.1f} vs head {mean(h[:n]):,.1f}")
