import sys, collections
# reads timeline.py -v output; reconstructs the forks of each pass (a class starts when its fork's previous ends)
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) == 6 and p[0].replace('.', '').isdigit():
        rows[p[3]].append((float(p[0]), float(p[1]), float(p[2]), p[4]))
for pas, rs in rows.items():
    rs.sort()
    forks = []
    for s, e, d, c in rs:
        best = None
        for f in forks:
            if f[-1][1] <= s + 0.3 and (best is None or f[-1][1] > best[-1][1]):
                best = f
        if best is None:
            forks.append([(s, e, d, c)])
        else:
            best.append((s, e, d, c))
    end = max(e for s, e, d, c in rs); start = min(s for s, e, d, c in rs)
    desc = []
    for f in forks:
        busy = sum(d for s, e, d, c in f)
        top = sorted(f, key=lambda x: -x[2])[:2]
        desc.append(f"fork: {len(f)} classes, busy {busy:.1f} s, ends {end - f[-1][1]:.1f} s before the pass ends; longest {', '.join(f'{c} {d:.1f}' for s, e, d, c in top)}")
    print(f"{pas}: span {end-start:.1f} s, {len(forks)} JVMs")
    for d in desc:
        print("   " + d)
