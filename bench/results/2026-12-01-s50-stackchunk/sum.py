#!/usr/bin/env python3
"""sum.py DIR...: per wait2.sh run (STEADY=1 SA=1): from frames.txt (ChunkFrames' shapes, the most common eight), the
streams parked on their origin (the park under SocketChannelImpl.blockingRead) and those at HttpInput's yield: words in
use per thread, chunks, physical frames, and the words of the frames whose compiled root is the gateway's; from
gc.log, the young collections of the run's second half: bytes surviving (young after + old growth), pause."""
import sys, re, statistics
OURS = ('UpstreamForwarder', 'ProxyHandler', 'FilterChains', 'ClientConnection', 'ServerFrames', 'ConnectionExecutors',
        'UpstreamAttempt', 'Http1Codec', 'HttpInput', 'WatchedInputStream')
def shapes(path):
    out = []
    for block in open(path).read().split('\n== ')[1:]:
        m = re.match(r'(\d+) threads:\n', block)
        if not m: continue
        n = int(m.group(1)); words = frames = ours = chunks = 0
        for line in block.splitlines()[1:]:
            c = re.match(r'-- chunk: (\d+) words', line)
            if c: chunks += 1; words += int(c.group(1)); continue
            f = re.match(r'\s+(\d+)\s+(\S+)\s+(.*)', line)
            if f:
                frames += 1
                root = f.group(3).split(' < ')[-1].split('.')[0].split('$$')[0]
                if root.startswith(OURS): ours += int(f.group(1))
        kind = 'park' if 'blockingRead' in block else 'yield' if 'tryYield' in block else 'other'
        out.append((kind, n, words, chunks, frames, ours))
    return out
def gc(path):
    surv, pause, old = [], [], None
    lines = open(path).read().splitlines()
    rec = {}
    for l in lines:
        m = re.search(r'GC\((\d+)\) DefNew: \S+->(\d+)K', l)
        if m: rec.setdefault(int(m.group(1)), {})['young'] = int(m.group(2))
        m = re.search(r'GC\((\d+)\) Tenured: (\d+)K\(\d+K\)->(\d+)K', l)
        if m: rec.setdefault(int(m.group(1)), {})['old'] = int(m.group(3)) - int(m.group(2))
        m = re.search(r'GC\((\d+)\) Pause Young .* ([\d.]+)ms', l)
        if m: rec.setdefault(int(m.group(1)), {})['pause'] = float(m.group(2))
    ys = [v for k, v in sorted(rec.items()) if 'pause' in v and 'young' in v]
    ys = ys[len(ys) // 2:]
    if not ys: return 'no young collections'
    s = statistics.median(v['young'] + max(v.get('old', 0), 0) for v in ys)
    p = statistics.median(v['pause'] for v in ys)
    return f'{len(ys)} young collections (second half): surviving median {s:.0f} KiB, pause median {p:.1f} ms'
for d in sys.argv[1:]:
    load = open(f'{d}/load.txt').read().split('load average:')[1].split('\n')[0].strip()
    print(f'== {d.rstrip("/").rsplit("/", 1)[-1]} (load {load})')
    try:
        sh = shapes(f'{d}/frames.txt')
    except FileNotFoundError:
        sh = []
    for kind in ('park', 'yield'):
        rows = [r for r in sh if r[0] == kind]
        n = sum(r[1] for r in rows)
        if not n: continue
        avg = lambda i: sum(r[1] * r[i] for r in rows) / n
        print(f'  {kind:5s}: {n:5d} threads; words in use {avg(2):6.1f} ({avg(2) * 8:5.0f} B), chunks {avg(3):.2f}, '
              f'physical frames {avg(4):4.1f}, words in frames rooted in the gateway {avg(5):5.1f}; shapes (threads x words): '
              + ', '.join(f'{r[1]}x{r[2]}' for r in rows))
    print('  gc:', gc(f'{d}/gc.log'))
