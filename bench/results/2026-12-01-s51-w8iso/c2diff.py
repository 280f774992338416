#!/usr/bin/env python3
"""Which methods C2 compiles in one build's runs and not in another's: per build (base<x>-<round>.jfr in the KEEP
dirs), in how many runs each method got a tier-4 compilation; prints the methods whose counts differ most.
    c2diff.py A B KEEPDIR...   (A, B: build names, e.g. head notrain)"""
import collections, glob, json, os, subprocess, sys
JFR = os.environ.get("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64") + "/bin/jfr"
a, b = sys.argv[1], sys.argv[2]
seen = {a: collections.Counter(), b: collections.Counter()}; nruns = collections.Counter()
for d in sys.argv[3:]:
    for build in (a, b):
        for f in sorted(glob.glob(f"{d}/base{build}-*.jfr")):
            ev = json.loads(subprocess.run([JFR, "print", "--json", "--events", "jdk.Compilation", f], check=True,
                                           capture_output=True, text=True).stdout)["recording"]["events"]
            nruns[build] += 1
            names = {e["values"]["method"]["type"]["name"].replace("/", ".") + "::" + e["values"]["method"]["name"]
                     for e in ev if e["values"]["compileLevel"] == 4}
            seen[build].update(names)
print(f"runs: {dict(nruns)}")
diff = sorted(set(seen[a]) | set(seen[b]), key=lambda m: -abs(seen[a][m] / nruns[a] - seen[b][m] / nruns[b]))
pkg = collections.Counter()
for m in diff:
    d = seen[a][m] / nruns[a] - seen[b][m] / nruns[b]
    if abs(d) >= 0.5:
        pkg[(".".join(m.split("::")[0].split(".")[:3]), "more in " + (a if d > 0 else b))] += 1
print("methods C2-compiled in at least half more of one build's runs, by package:")
for (p, w), n in pkg.most_common(25):
    print(f"  {n:4d} {w:16s} {p}")
print("the first 40:")
for m in diff[:40]:
    print(f"  {seen[a][m]}/{nruns[a]} {seen[b][m]}/{nruns[b]}  {m}")
