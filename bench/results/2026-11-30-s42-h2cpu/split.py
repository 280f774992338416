#!/usr/bin/env python3
"""split.py FILE.collapsed requests: CPU samples (async-profiler event=cpu) per request split into kernel and, of the
user samples, the JIT, the collector, TLS (Conscrypt, the gateway's tls package), the JDK's socket I/O under the
gateway's I/O calls, the virtual-thread scheduler (no gateway frame, or a yield), and the rest: the gateway's own code."""
import sys, collections
f = sys.argv[1]; per = float(sys.argv[2]); interval_us = float(sys.argv[3]) if len(sys.argv) > 3 else 200
IO = ('io/loomgate/threads/WatchedInputStream', 'io/loomgate/threads/WatchedOutputStream', 'io/loomgate/http1/HttpOutput.flushBuffer')
cat = collections.Counter()
for line in open(f):
    line = line.rstrip('\n')
    if not line: continue
    stack, _, cnt = line.rpartition(' '); c = int(cnt); frames = stack.split(';')
    if frames[-1].endswith('_[k]'): cat['kernel'] += c; continue
    if any('CompileBroker' in x for x in frames): cat['user: JIT compilers'] += c; continue
    if any(x.startswith('VMThread') for x in frames): cat['user: collector (VM thread)'] += c; continue
    if any('conscrypt' in x.lower() or x.startswith('io/loomgate/tls') for x in frames): cat['user: TLS'] += c; continue
    g = next((x for x in reversed(frames) if x.startswith('io/loomgate') and '$$Lambda' not in x), None)
    if g is None or 'yieldBeforeWait' in g or 'Continuation' in frames[-1] or 'thaw' in frames[-1] or 'freeze' in frames[-1].lower():
        cat['user: virtual-thread scheduling, continuations'] += c; continue
    if g.startswith(IO): cat['user: JDK socket I/O under the gateway'] += c; continue
    cat['user: the gateway\'s own code (with the JDK code it calls)'] += c
total = sum(cat.values())
for k, v in sorted(cat.items(), key=lambda kv: -kv[1]):
    print(f'{100*v/total:5.1f}%  {v*interval_us/per:6.2f} us/request  {k}')
print(f'total {total} samples, {total*interval_us/per:.2f} us/request')
