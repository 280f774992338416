import re, sys
print("file rd load | window CPU s | carriers | C2 | C1 | VM(GC) | rest | µs/req: total carriers C2+C1 VM rest | HAProxy | excess split (JIT/GC/carriers/rest)")
for f in sys.argv[1:]:
    hap = {}
    rows = []
    for line in open(f):
        m = re.match(r"^(\S+)\s+(\d+) WINDOW\s+\d+\s+(\d+)\s+\d+\s+\d+%\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", line)
        if not m: continue
        name, rd, req, us, nojit, c1, c2, vm, carr, oth, load = m.group(1), m.group(2), int(m.group(3)), *map(float, m.groups()[3:])
        if name == 'haproxy': hap[rd] = us; continue
        rows.append((name, rd, req, us, c1, c2, vm, carr, oth, load))
    for name, rd, req, us, c1, c2, vm, carr, oth, load in rows:
        tot = us * req / 1e6
        jit = (c1 + c2) / req * 1e6; g = vm / req * 1e6; rest = us - carr - jit - g
        h = hap.get(rd)
        ex = f"{(jit)/(us-h)*100:.0f}%/{g/(us-h)*100:.0f}%/{(carr-h)/(us-h)*100:.0f}%/{rest/(us-h)*100:.0f}%" if h and h < us else "-"
        print(f"{f.split('/')[-1]} {name} rd{rd} {load:5.1f} | {tot:.2f} | {carr*req/1e6:.2f} | {c2:.1f} | {c1:.1f} | {vm:.1f} | {rest*req/1e6:.2f} | {us:.1f} {carr:.1f} {jit:.1f} {g:.1f} {rest:.1f} | {h} | {ex}")
