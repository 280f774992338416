#!/usr/bin/env python3
"""C2 (tier 4) compilations per phase of one bench/harness-phases run (JFR=1 KEEP=dir), each method marked with what
the AOT cache's training data holds for it: 'none' (no training data), or the highest tier the training compiled it
at (T0 = profiled but never compiled). Also first compilation in the run or again.
    phase-c2.py RUN.jfr RUN.phases AOTPRINT [PHASE [N]]
AOTPRINT: the output of `java <the cache's flags> -XX:AOTCache=... -XX:+PrintSharedArchiveAndExit -cp JAR`."""
import collections, json, re, subprocess, sys

jfr, phases_file, aotprint = sys.argv[1:4]
show = sys.argv[4] if len(sys.argv) > 4 else "WINDOW"
top = int(sys.argv[5]) if len(sys.argv) > 5 else 40

trained = {}  # "pkg/Cls.method(desc)" -> highest tier compiled in training (0: training data, no compilation)
cur = None
in_dict = False
for line in open(aotprint, errors="replace"):
    if "Archived TrainingData Dictionary" in line:
        in_dict = True
        continue
    if not in_dict:
        continue
    m = re.match(r"\s*\d+: 0x[0-9a-f]+ M (\S+)", line)
    if m:
        cur = m.group(1).replace("[A]", "")
        trained.setdefault(cur, 0)
        continue
    if re.match(r"\s*\d+: 0x", line):
        cur = None
        continue
    m = re.match(r"\s+C (\S+)#\d+L(\d)", line)
    if m and cur:
        trained[cur] = max(trained[cur], int(m.group(2)))

def epoch(iso):
    import datetime
    m = re.match(r"(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$", iso)
    base = datetime.datetime.fromisoformat(m.group(1) + ("+00:00" if m.group(3) == "Z" else m.group(3)))
    return base.timestamp() + float("0." + (m.group(2) or "0"))

def secs(d):
    m = re.match(r"PT(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?", d or "PT0S")
    h, mi, s = m.groups()
    return int(h or 0) * 3600 + int(mi or 0) * 60 + float(s or 0)

phases = []
for line in open(phases_file):
    p = line.split()
    phases.append((p[0], float(p[1]), int(p[3])))
def phase_of(t):
    label = "start"
    for name, a, _ in phases:
        if t >= a:
            label = name
    return label

out = subprocess.run(["/usr/lib/jvm/temurin-25-jdk-amd64/bin/jfr", "print", "--json", "--events",
                      "jdk.Compilation", jfr], capture_output=True, text=True, check=True).stdout
evs = sorted(json.loads(out)["recording"]["events"], key=lambda e: epoch(e["values"]["startTime"]))
seen = collections.Counter()
per = collections.defaultdict(list)
for e in evs:
    v = e["values"]
    if v["compileLevel"] != 4:
        continue
    m = v["method"]
    key = m["type"]["name"] + "." + m["name"] + m["descriptor"]
    td = trained.get(key)
    per[phase_of(epoch(v["startTime"]))].append(
        (secs(v["duration"]), key, v.get("codeSize", 0), "again" if seen[key] else "first",
         "none" if td is None else f"T{td}", bool(v.get("isOsr"))))
    seen[key] += 1

print(f"training data: {len(trained)} methods, {sum(1 for t in trained.values() if t == 4)} compiled by C2 in the training")
print(f"{'phase':8s} {'C2':>4s} {'C2 s':>6s} {'again':>5s} {'own':>4s} | by training data: none / T0-T3 / T4 (count, C2 s)")
order = ["start"] + [p[0] for p in phases]
for ph in order:
    rows = per.get(ph, [])
    if not rows:
        continue
    def grp(pred):
        r = [x for x in rows if pred(x[4])]
        return f"{len(r)} {sum(x[0] for x in r):.2f}"
    own = sum(1 for r in rows if r[1].startswith("io/loomgate"))
    print(f"{ph:8s} {len(rows):4d} {sum(r[0] for r in rows):6.2f} {sum(1 for r in rows if r[3]=='again'):5d} {own:4d} | "
          f"{grp(lambda t: t=='none')} / {grp(lambda t: t in ('T0','T1','T2','T3'))} / {grp(lambda t: t=='T4')}")
print(f"\n{show}'s C2 compilations (s, code B, first/again, training data, method):")
for r in sorted(per.get(show, []), reverse=True)[:top]:
    print(f"  {r[0]:6.3f} {r[2]:7d} {r[3]:5s} {r[4]:4s} {r[1].split('(')[0].replace('/', '.')}{' (OSR)' if r[5] else ''}")
