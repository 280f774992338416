#!/usr/bin/env python3
"""user.py FILE.collapsed [N] [requests]: CPU samples (async-profiler, event=cpu) split into kernel (the leaf frame is
the kernel's, _[k]) and user; the user samples by leaf frame, and by the deepest gateway frame (io/loomgate) on the
stack, that is each gateway method with the JDK and library code it calls, not counting what other gateway methods
it calls. With requests: samples per 1,000 requests too."""
import sys, collections
f = sys.argv[1]; n = int(sys.argv[2]) if len(sys.argv) > 2 else 40; per = float(sys.argv[3]) if len(sys.argv) > 3 else 0
leaf = collections.Counter(); own = collections.Counter(); top = collections.Counter(); total = kern = 0
for line in open(f):
    line = line.rstrip('\n')
    if not line: continue
    stack, _, cnt = line.rpartition(' '); c = int(cnt); total += c
    frames = stack.split(';')
    if frames[-1].endswith('_[k]'): kern += c; continue
    frames = [x for x in frames if not x.endswith('_[k]')]
    leaf[frames[-1]] += c
    g = next((x for x in reversed(frames) if x.startswith('io/loomgate')), None)
    if g is None:
        g = 'no gateway frame: ' + (frames[1] if len(frames) > 1 else frames[0])
    own[g] += c
user = total - kern
def pk(v): return f'  {1000*v/per:6.2f}/1k req' if per else ''
print(f'samples {total}, kernel {kern} ({100*kern/total:.1f}%), user {user} ({100*user/total:.1f}%)')
print('## user samples by leaf frame (share of user samples)')
for k, v in leaf.most_common(n): print(f'{100*v/user:6.2f}%{pk(v)}  {k}')
print('## user samples by the deepest gateway frame (with the JDK/library code under it)')
for k, v in own.most_common(n): print(f'{100*v/user:6.2f}%{pk(v)}  {k}')
