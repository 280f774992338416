#!/usr/bin/env python3
"""histo-sum.py DIR: from histo.sh's two class histograms, the live bytes per waiting request (what is live during W9
and not after, over the Http2Stream instances open during), the top classes of that difference, the stack chunks,
and the depth of the stream threads parked in the dump."""
import sys, re, collections
d = sys.argv[1]
def histo(f):
    m = {}
    for line in open(f):
        p = line.split()
        if len(p) >= 4 and p[0].endswith(':') and p[0][:-1].isdigit():
            m[p[3]] = (int(p[1]), int(p[2]))
    return m
a, b = histo(f'{d}/histo-during.txt'), histo(f'{d}/histo-after.txt')
streams = a.get('io.loomgate.http2.Http2Stream', (0, 0))[0] - b.get('io.loomgate.http2.Http2Stream', (0, 0))[0]
total = lambda m: sum(v[1] for v in m.values())
diff = {k: (a[k][0] - b.get(k, (0, 0))[0], a[k][1] - b.get(k, (0, 0))[1]) for k in a}
print(f'live during {total(a)} B, after {total(b)} B, streams open {streams}, '
      f'per waiting request {(total(a) - total(b)) / max(streams, 1):.0f} B')
sc = a.get('jdk.internal.vm.StackChunk', (0, 0))
print(f'StackChunk during: {sc[0]} chunks, {sc[1]} B, {sc[1] / max(sc[0], 1):.0f} B each')
for k, v in sorted(diff.items(), key=lambda kv: -kv[1][1])[:25]:
    print(f'{v[1] / max(streams, 1):8.1f} B/request {v[0]:8d} {v[1]:10d}  {k}')
# stream threads parked on their origin's read: frames each, and how many are the gateway's
depths = collections.Counter()
try:
    text = open(f'{d}/threads-during.txt').read()
    for block in text.split('\n\n'):
        if 'readResponseHead' in block and 'ServerFrames.runStream' in block:
            frames = [l.strip()[3:] for l in block.split('\n') if l.strip().startswith('at ')]
            own = [f for f in frames if f.startswith('io.loomgate')]
            depths[(len(frames), len(own))] += 1
except FileNotFoundError:
    pass
for (n, own), c in depths.most_common(3):
    print(f'{c} stream threads parked in readResponseHead with {n} frames, {own} of them the gateway\'s')
