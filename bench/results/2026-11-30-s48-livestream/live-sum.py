#!/usr/bin/env python3
"""live-sum.py DIR: from live.sh's output: (1) the young collections of the counted phase (between the two VM.uptime
marks): how many, requests per collection, bytes surviving each (survivor after + old generation's growth), the age-1
bytes, pause; per in-flight stream (-c x 10); (2) the live set during the sampled load less after it, by class and by
owner (package), over the Http2Stream instances open; the stack chunks; (3) the thread dump: the stream threads by
where they sit and their depth."""
import sys, re, collections, statistics
d = sys.argv[1]
import os
if os.path.exists(f'{d}/mark-start.txt'):
    start = float(open(f'{d}/mark-start.txt').read().split()[0]); end = float(open(f'{d}/mark-end.txt').read().split()[0])
else:
    start = end = -1  # wait.sh: no counted phase
h2 = open(f'{d}/h2load.txt').read()
reqs = int(re.search(r'requests: (\d+) total', h2).group(1))
clients = int(re.search(r'clients: (\d+)|(\d+) clients', h2).group(1) or 0) if re.search(r'clients: (\d+)', h2) else None
inflight = {'w8': 1000}.get(d.rsplit('/', 1)[1].split('-')[0], 2000)
gcs = collections.defaultdict(dict)
for line in open(f'{d}/gc.log'):
    m = re.match(r'\[([\d.]+)s\]\[([a-z,]+)\s*\] GC\((\d+)\) (.*)', line)
    if not m: continue
    t, tags, n, msg = float(m.group(1)), m.group(2), int(m.group(3)), m.group(4)
    g = gcs[n]; g.setdefault('t', t)
    if mm := re.match(r'DefNew: (\d+)K\(\d+K\)->(\d+)K', msg): g['young_after'] = int(mm.group(2)) * 1024
    if mm := re.match(r'Tenured: (\d+)K\(\d+K\)->(\d+)K', msg): g['promoted'] = (int(mm.group(2)) - int(mm.group(1))) * 1024
    if mm := re.match(r'- age\s+1:\s+(\d+) bytes', msg): g['age1'] = int(mm.group(1))
    if mm := re.match(r'Pause (Young|Full).* ([\d.]+)ms$', msg): g['kind'] = mm.group(1); g['pause'] = float(mm.group(2))
young = [g for g in gcs.values() if start <= g['t'] <= end and g.get('kind') == 'Young' and 'promoted' in g]
full = [g for g in gcs.values() if start <= g['t'] <= end and g.get('kind') == 'Full']
if young:
    surv = [g['young_after'] + max(g['promoted'], 0) for g in young]
    print(f'counted: {reqs} requests, {len(young)} young and {len(full)} full collections, '
          f'{reqs / len(young):.0f} requests per young collection')
    print(f'  surviving per young collection (survivor + promoted): median {statistics.median(surv) / 1024:.0f} KiB, '
          f'mean {statistics.mean(surv) / 1024:.0f} KiB; survivor median {statistics.median(g["young_after"] for g in young) / 1024:.0f} KiB, '
          f'promoted median {statistics.median(g["promoted"] for g in young) / 1024:.0f} KiB')
    print(f'  per in-flight stream ({inflight}): {statistics.median(surv) / inflight:.0f} B (median collection)')
    print(f'  pause: median {statistics.median(g["pause"] for g in young):.2f} ms, sum {sum(g["pause"] for g in young):.0f} ms, '
          f'{sum(g["pause"] for g in young) * 1000 / reqs:.2f} us per request')
def histo(f):
    m = {}
    for line in open(f):
        p = line.split()
        if len(p) >= 4 and p[0].endswith(':') and p[0][:-1].isdigit():
            m[p[3]] = (int(p[1]), int(p[2]))
    return m
try:
    a, b = histo(f'{d}/histo-during.txt'), histo(f'{d}/histo-after.txt')
except FileNotFoundError:
    sys.exit()
streams = a.get('io.loomgate.http2.Http2Stream', (0, 0))[0] - b.get('io.loomgate.http2.Http2Stream', (0, 0))[0]
total = lambda m: sum(v[1] for v in m.values())
diff = {k: (a[k][0] - b.get(k, (0, 0))[0], a[k][1] - b.get(k, (0, 0))[1]) for k in a}
print(f'histogram: live during {total(a)} B, after {total(b)} B, Http2Stream open {streams}, '
      f'per stream {(total(a) - total(b)) / max(streams, 1):.0f} B')
sc = a.get('jdk.internal.vm.StackChunk', (0, 0))
print(f'  StackChunk during: {sc[0]} chunks, {sc[1]} B, {sc[1] / max(sc[0], 1):.0f} B each')
owners = collections.Counter()
for k, v in diff.items():
    if v[1] <= 0: continue
    o = k
    for pre in ('io.loomgate.', 'jdk.internal.vm.', 'java.util.concurrent.', 'java.lang.'):
        if k.startswith(pre): o = pre + k[len(pre):].split('.')[0] if pre == 'io.loomgate.' else pre + '*'; break
    if k.startswith('['): o = 'arrays ' + k
    owners[o] += v[1]
print('  by owner, B per stream:')
for o, v in owners.most_common(14): print(f'    {v / max(streams, 1):8.1f}  {o}')
print('  by class, B per stream (count per stream):')
for k, v in sorted(diff.items(), key=lambda kv: -kv[1][1])[:30]:
    print(f'    {v[1] / max(streams, 1):8.1f} ({v[0] / max(streams, 1):5.2f})  {k}')
where = collections.Counter()
try:
    for block in open(f'{d}/threads-during.txt').read().split('\n#'):
        if 'virtual' not in block.split('\n')[0] or '"h2-' not in block.split('\n')[0]: continue
        frames = [l.strip()[3:] for l in block.split('\n') if l.strip().startswith('at ')]
        own = [f for f in frames if f.startswith('io.loomgate')]
        where[(own[0].split('(')[0] if own else '(not yet run)', len(frames), len(own))] += 1
except FileNotFoundError:
    pass
print('  stream threads in the dump: where (first gateway frame), frames, gateway frames:')
for k, c in where.most_common(8): print(f'    {c:5d}  {k}')
