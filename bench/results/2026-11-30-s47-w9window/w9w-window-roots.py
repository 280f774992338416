#!/usr/bin/env python3
"""C2 (tier 4) compilations inside the WINDOW phase of one harness-phases run: each root, its duration, code size,
whether it was compiled at tier 4 before in the run (a recompile), and the sum. usage: RUN.jfr RUN.phases"""
import json, subprocess, sys, re, datetime, collections
sys.path.insert(0, '/work/wt/w9window/bench/harness-phases')
import importlib.util
spec = importlib.util.spec_from_file_location('jc', '/work/wt/w9window/bench/harness-phases/jit-census.py')
jc = importlib.util.module_from_spec(spec); spec.loader.exec_module(jc)
jfr, phases = sys.argv[1], sys.argv[2]
ph = {}
for line in open(phases):
    p = line.split()
    if len(p) >= 3:
        ph[p[0]] = (float(p[1]), float(p[2]))
w0, w1 = ph['WINDOW']
out = subprocess.run(['/usr/lib/jvm/temurin-25-jdk-amd64/bin/jfr', 'print', '--json', '--events', 'jdk.Compilation', jfr],
                     capture_output=True, text=True).stdout
evs = json.loads(out)['recording']['events']
seen4 = collections.Counter()
rows = []
for e in sorted(evs, key=lambda e: jc.epoch(e['values']['startTime'])):
    v = e['values']
    if v.get('compileLevel') != 4:
        continue
    t = jc.epoch(v['startTime'])
    m = jc.name(v['method'])
    osr = v.get('isOsr')
    if w0 <= t < w1:
        rows.append((jc.seconds(v['duration']), m + (' (OSR)' if osr else ''), v.get('codeSize', 0), v.get('inlinedBytes', 0), seen4[m]))
    seen4[m] += 1
rows.sort(reverse=True)
tot = sum(r[0] for r in rows)
re_ = [r for r in rows if r[4] > 0]
print(f"C2 compilations started in WINDOW: {len(rows)}, {tot:.2f} s (compile wall time); of them recompiles of a method C2 had compiled earlier in the run: {len(re_)}, {sum(r[0] for r in re_):.2f} s")
lp = collections.defaultdict(float)
for r in rows:
    lp['io.loomgate.' + r[1].split('.')[2] if r[1].startswith('io.loomgate') else r[1].split('.')[0]] += r[0]
print("  by package:", ", ".join(f"{k} {v:.2f}" for k, v in sorted(lp.items(), key=lambda x: -x[1])[:8]))
for r in rows[:int(sys.argv[3]) if len(sys.argv) > 3 else 20]:
    print(f"  {r[0]:6.3f} s {r[2]:7d} B inl {r[3]:6d}  {'again' if r[4] else 'first'}  {r[1]}")
