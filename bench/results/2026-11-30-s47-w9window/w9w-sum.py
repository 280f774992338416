#!/usr/bin/env python3
"""Per run of a harness-phases output (JFR=1): window µs/req, ratio to the same round's HAProxy, C2 s (thread CPU) and
VM s in the window, deoptimisations in pre-3s ('before') and WINDOW, and the named sites' frames (any phase)."""
import re, sys
SITES = ["ThreadMarks::freeSlot", "UpstreamAttempt::settle", "UpstreamForwarder::proceed:53", "ExchangeListener"]
for f in sys.argv[1:]:
    runs = []; cur = None; hap = {}
    for line in open(f):
        m = re.match(r"^(\S+)\s+(\d+) (WINDOW)\s+\d+\s+(\d+)\s+\d+\s+\d+%\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", line)
        if m:
            name, rd = m.group(1), m.group(2)
            if name == 'haproxy':
                hap[rd] = float(m.group(5)); continue
            cur = dict(name=name, rd=rd, req=int(m.group(4)), us=float(m.group(5)), nojit=float(m.group(6)), c2=float(m.group(8)), vm=float(m.group(9)), carr=float(m.group(10)), load=m.group(12), ph={}, sites={})
            runs.append(cur); continue
        m = re.match(r"^\s+(start|warm-\d|pre-3s|WINDOW)\s+\d+\s+\d+\s+\d+\s+[\d.]+\s+\d+\s+(\d+)\s+(\d+)\s+([\d.]+)", line)
        if m and cur is not None:
            cur['ph'][m.group(1)] = (int(m.group(2)), int(m.group(3)), float(m.group(4))); continue
        m = re.match(r"^\s+(\d+) (\S+):(\d+) bci \d+ \S+, (\S+), (\S+), in", line)
        if m and cur is not None:
            key = f"{m.group(2).split('.')[-1]}:{m.group(3)} {m.group(4)} {m.group(5)}"
            cur['sites'][key] = cur['sites'].get(key, 0) + int(m.group(1))
    print(f"# {f}")
    for r in runs:
        h = hap.get(r['rd'])
        ratio = f"{r['us']/h:.2f}" if h else "-"
        b = r['ph'].get('pre-3s', (0, 0, 0)); w = r['ph'].get('WINDOW', (0, 0, 0))
        named = {k: v for k, v in r['sites'].items() if any(s.split('::')[-1].split(':')[0] in k for s in SITES)}
        print(f"{r['name']:9} rd{r['rd']} load {r['load']:>5}: window {r['us']:5.1f} µs/req (HAProxy {h}, ratio {ratio}; -JIT {r['nojit']}, carriers {r['carr']}), C2 {r['c2']} s VM {r['vm']} s, "
              f"deopts before {b[0]} window {w[0]}, GCs window {w[1]} ({w[2]} s); sites {named}")
