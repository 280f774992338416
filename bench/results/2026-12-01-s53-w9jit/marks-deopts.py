#!/usr/bin/env python3
"""Per run of bench/harness-phases (KEEP=dir): every deoptimisation by phase, and those at the sites this branch is
about (ThreadMarks, Thread.isAlive / VirtualThread.alive, ConnectionExecutors' lambdas, LogContext), and the tier-4
recompilations ("again") of the proxy path's roots in pre-3s + WINDOW.
    marks-deopts.py KEEPDIR RUN...   (RUN: base-1, basebr-2, ...)"""
import collections, json, re, subprocess, sys, datetime

def epoch(iso):
    m = re.match(r"(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$", iso)
    base = datetime.datetime.fromisoformat(m.group(1) + ("+00:00" if m.group(3) == "Z" else m.group(3)))
    return base.timestamp() + float("0." + (m.group(2) or "0"))

SITES = re.compile(r"ThreadMarks|Thread::isAlive|VirtualThread::alive|ConnectionExecutors|LogContext")
ROOTS = {"io/loomgate/proxy/ProxyHandler." + m for m in ("handle", "exchange", "proxy")} | {"io/loomgate/proxy/LogContext.enter"}
keep = sys.argv[1]
for run in sys.argv[2:]:
    phases = [(l.split()[0], float(l.split()[1])) for l in open(f"{keep}/{run}.phases")]
    ph = lambda t: max([p for p in phases if p[1] <= t], key=lambda p: p[1], default=("start", 0))[0]
    out = subprocess.run(["/usr/lib/jvm/temurin-25-jdk-amd64/bin/jfr", "print", "--json", "--events",
                          "jdk.Deoptimization,jdk.Compilation", f"{keep}/{run}.jfr"], capture_output=True, text=True).stdout
    evs = sorted(json.loads(out)["recording"]["events"], key=lambda e: epoch(e["values"]["startTime"]))
    per = collections.Counter()
    sites = collections.Counter()
    seen = collections.Counter()
    again = collections.Counter()
    for e in evs:
        v = e["values"]
        p = ph(epoch(v["startTime"]))
        if e["type"] == "jdk.Deoptimization":
            per[p] += 1
            m = v["method"]
            name = m["type"]["name"].replace("/", ".") + "::" + m["name"]
            comp = v.get("compiledMethod") or {}
            cname = (comp.get("type", {}).get("name", "?").replace("/", ".") + "::" + comp.get("name", "?")) if comp else "?"
            if SITES.search(name) or SITES.search(cname):
                sites[(p, f"{name}:{v.get('lineNumber')} {v.get('reason')}/{v.get('action')} in {cname}")] += 1
        elif v.get("compileLevel") == 4:
            m = v["method"]
            key = m["type"]["name"] + "." + m["name"]
            if key in ROOTS and p in ("pre-3s", "WINDOW") and seen[key]:
                again[key.split("/")[-1]] += 1
            if key in ROOTS and p in ("pre-3s", "WINDOW"):
                again["(all) " + key.split("/")[-1]] += 1
            seen[key] += 1
    print(f"== {run}: deoptimisations by phase: " + " ".join(f"{p} {n}" for p, n in per.items()))
    for (p, s), n in sorted(sites.items()):
        print(f"   {n:4d} {p:7s} {s}")
    print("   tier-4 compilations of the roots in pre-3s + WINDOW (again = a recompilation): "
          + (", ".join(f"{k} {n}" for k, n in sorted(again.items())) or "none"))
