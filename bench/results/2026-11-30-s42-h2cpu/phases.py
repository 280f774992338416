#!/usr/bin/env python3
"""phases.py FILE.collapsed [requests]: user CPU samples (leaf not the kernel's) inclusive per gateway frame, every
io/loomgate frame counted once per stack; shows the phases of a request."""
import sys, collections
f = sys.argv[1]; per = float(sys.argv[2]) if len(sys.argv) > 2 else 0
incl = collections.Counter(); user = 0
for line in open(f):
    line = line.rstrip('\n')
    if not line: continue
    stack, _, cnt = line.rpartition(' '); c = int(cnt)
    frames = stack.split(';')
    if frames[-1].endswith('_[k]'): continue
    user += c
    for fr in set(x for x in frames if x.startswith('io/loomgate') and '$$Lambda' not in x): incl[fr] += c
print(f'user samples {user}')
for k, v in incl.most_common(int(sys.argv[3]) if len(sys.argv) > 3 else 70):
    print(f'{100*v/user:6.2f}%' + (f'  {1000*v/per:6.2f}/1k req' if per else '') + f'  {k}')
