#!/usr/bin/env python3
"""A/B pairs from bench/harness-phases/run.sh output (JFR=1, COUNT mode): per run, the C2 thread's CPU (/proc) and
C2 compilations (JFR, by start time) over the first WARM phases (plain: warm-1, warm-2 = the first 80,000 requests at
COUNT=40000; w9: every phase up to the window's end), the run's whole C2 CPU, and the steady phases' CPU per request
(plain: warm-6..warm-11, the mean over equal phases; w9: more-1..more-3); then the pairs (same series and round).

    pairs.py A B FILE [FILE...]          # A, B: the proxy names (base opt1)
"""
import re
import statistics
import sys

a_name, b_name, files = sys.argv[1], sys.argv[2], sys.argv[3:]
runs = []  # (file, series, round, proxy, dict)
for f in files:
    series = 0
    cur = None
    for line in open(f):
        if line.startswith("# "):
            series += 1
            m = re.search(r"shape (\w+)", line)
            shape = m.group(1) if m else "plain"
            continue
        p = line.split()
        if len(p) >= 15 and re.match(r"^(warm-\d+|pre-3s|WINDOW|more-\d+)$", p[2]) and p[1].isdigit():
            key = (f, series, int(p[1]), p[0])
            if cur is None or cur["key"] != key:
                cur = {"key": key, "shape": shape, "phases": {}, "census": {}, "load": []}
                runs.append(cur)
            cur["phases"][p[2]] = {"n": int(p[4]), "us": float(p[7]), "c2": float(p[10]), "c1": float(p[9])}
            cur["load"].append(float(p[14]))
        elif cur is not None and len(p) >= 6 and re.match(r"^(start|warm-\d+|pre-3s|WINDOW|more-\d+)$", p[0]) \
                and p[1].isdigit() and "." in p[4]:
            cur["census"][p[0]] = {"c1": int(p[2]), "c2": int(p[3])}


def digest(r):
    ph, ce = r["phases"], r["census"]
    if r["shape"] == "plain":
        warm = ["warm-1", "warm-2"]
        steady = [f"warm-{k}" for k in range(6, 12)]
    else:
        warm = [k for k in ph if k.startswith("warm-")] + ["pre-3s", "WINDOW"]
        steady = [k for k in ph if k.startswith("more-")]
    return {
        "c2s": sum(ph[k]["c2"] for k in warm if k in ph),
        "c2n": sum(ce.get(k, {}).get("c2", 0) for k in warm),
        "c2all": sum(v["c2"] for v in ph.values()),
        "us_warm": sum(ph[k]["us"] * ph[k]["n"] for k in warm if k in ph) / max(1, sum(ph[k]["n"] for k in warm if k in ph)),
        "steady": statistics.mean(ph[k]["us"] for k in steady if k in ph) if any(k in ph for k in steady) else float("nan"),
        "steady_nojit": None,
        "load": f"{min(r['load']):.1f}-{max(r['load']):.1f}",
    }


print("| file, series, round | load A / B | C2 CPU s, warm A / B | C2 compilations, warm A / B | C2 CPU s, run A / B "
      "| CPU µs/req, warm A / B | steady µs/req A / B |")
print("|---|---|---|---|---|---|---|")
pairs = []
by = {}
for r in runs:
    by.setdefault(r["key"][:3], {})[r["key"][3]] = r
for k, d in by.items():
    if a_name in d and b_name in d:
        A, B = digest(d[a_name]), digest(d[b_name])
        pairs.append((A, B))
        print(f"| {k[0].split('/')[-1]} {k[1]}.{k[2]} | {A['load']} / {B['load']} | {A['c2s']:.1f} / {B['c2s']:.1f} | "
              f"{A['c2n']} / {B['c2n']} | {A['c2all']:.1f} / {B['c2all']:.1f} | {A['us_warm']:.1f} / {B['us_warm']:.1f} | "
              f"{A['steady']:.1f} / {B['steady']:.1f} |")
if pairs:
    n = len(pairs)
    fell15 = sum(1 for A, B in pairs if B["c2s"] <= 0.85 * A["c2s"])
    print(f"\n{n} pairs: {b_name}'s warm C2 CPU at least 15% below {a_name}'s in {fell15} of {n} "
          f"(ratios {', '.join('%.2f' % (B['c2s'] / A['c2s']) for A, B in pairs if A['c2s'])}); "
          f"C2 compilations fewer in {sum(1 for A, B in pairs if B['c2n'] < A['c2n'])} of {n}; "
          f"steady µs/req ratio B/A per pair {', '.join('%.3f' % (B['steady'] / A['steady']) for A, B in pairs)} "
          f"(median {statistics.median(B['steady'] / A['steady'] for A, B in pairs):.3f})")
