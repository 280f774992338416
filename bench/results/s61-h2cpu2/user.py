#!/usr/bin/env python3
"""User-space samples of an async-profiler collapsed CPU profile (no kernel frame in the stack, JIT and GC threads
apart): the top leaves, and the top inclusive io/loomgate methods. Usage: user.py FILE [N]"""
import sys, collections
f = sys.argv[1]; N = int(sys.argv[2]) if len(sys.argv) > 2 else 30
tot = 0; user = []
for line in open(f):
    stack, n = line.rsplit(' ', 1); n = int(n); fr = stack.split(';')
    if any(k in stack for k in ('CompileBroker', 'C2Compiler', 'C1Compiler', 'GCTaskThread', 'VM_GC', 'VMThread')): continue
    tot += n
    if any(x.endswith('_[k]') for x in fr): continue
    user.append((fr, n))
U = sum(n for _, n in user)
print(f"non-JIT/GC samples {tot}, user-space {U} ({100*U/tot:.1f}%); shares of all {tot}")
leaf = collections.Counter(); inc = collections.Counter()
for fr, n in user:
    leaf[fr[-1]] += n
    for x in set(fr):
        if x.startswith('io/loomgate'): inc[x] += n
print('--- user leaves'); [print(f"{100*n/tot:5.1f}% {k}") for k, n in leaf.most_common(N)]
print('--- user inclusive loomgate'); [print(f"{100*n/tot:5.1f}% {k}") for k, n in inc.most_common(N)]
