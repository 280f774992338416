#!/usr/bin/env python3
"""Shares of an async-profiler collapsed CPU profile: JIT and GC apart, then inclusive shares of frames matching
each pattern given (name=regex), then the top self (leaf) frames and the top frames of loomgate's own code
(the innermost io/loomgate frame of each sample). Usage: shares.py FILE [name=regex ...]"""
import re, sys, collections
f = sys.argv[1]; pats = [a.split('=', 1) for a in sys.argv[2:]]
tot = 0; jit = 0; gc = 0; rest = []
for line in open(f):
    stack, n = line.rsplit(' ', 1); n = int(n); tot += n
    if 'CompileBroker' in stack or 'C2Compiler' in stack or 'C1Compiler' in stack: jit += n; continue
    if 'GCTaskThread' in stack or 'VM_GC' in stack or 'SerialHeap' in stack or 'VMThread' in stack: gc += n; continue
    rest.append((stack.split(';'), n))
R = sum(n for _, n in rest)
print(f"samples {tot}: JIT {100*jit/tot:.1f}%, GC/VM {100*gc/tot:.1f}%, the rest {R}; shares of the rest")
for name, rx in pats:
    r = re.compile(rx); s = sum(n for fr, n in rest if any(r.search(x) for x in fr))
    print(f"{100*s/R:6.1f}%  {name}")
leaf = collections.Counter(); own = collections.Counter()
for fr, n in rest:
    leaf[fr[-1]] += n
    o = [x for x in fr if x.startswith('io/loomgate')]
    own[o[-1] if o else '(no loomgate frame)'] += n
print('--- top leaves'); [print(f"{100*n/R:5.1f}% {k}") for k, n in leaf.most_common(int(25))]
print('--- innermost loomgate frame'); [print(f"{100*n/R:5.1f}% {k}") for k, n in own.most_common(int(30))]
