#!/usr/bin/env python3
"""sites50.py FILE.collapsed.gz|FILE.collapsed REQUESTS: bytes per request (async-profiler's sampled allocation, total
bytes) of the sites session 50 (allocw8) cuts, and the total: Retries (Retries.start), the client's cancel
(ProxyHandler$$Lambda), the HTTP/1.1 codec's abort (UpstreamAttempt$$Lambda made in UpstreamAttempt.connect), route
matching's iterators (ImmutableCollections$ListItr under route/), PathPattern.match's substring, the traceparent
(under TraceContext.sendUpstream)."""
import gzip, sys
f, n = sys.argv[1], float(sys.argv[2])
op = gzip.open if f.endswith('.gz') else open
keys = ['retries', 'cancel lambda', 'abort lambda', 'route iterators', 'path substring', 'traceparent']
sums = dict.fromkeys(keys, 0)
total = 0
for line in op(f, 'rt'):
    stack, _, cnt = line.rstrip('\n').rpartition(' ')
    c = int(cnt); total += c
    frames = stack.split(';')
    leaf = frames[-1]
    own = next((fr for fr in reversed(frames[:-1]) if fr.startswith('io/loomgate')), '')
    if 'Retries.start' in own:
        sums['retries'] += c
    elif leaf.startswith('io.loomgate.proxy.ProxyHandler$$Lambda'):
        sums['cancel lambda'] += c
    elif leaf.startswith('io.loomgate.proxy.UpstreamAttempt$$Lambda') and 'UpstreamAttempt.connect' in own:
        sums['abort lambda'] += c
    elif leaf.startswith('java.util.ImmutableCollections$ListItr') and own.startswith('io/loomgate/route/'):
        sums['route iterators'] += c
    elif own.startswith('io/loomgate/route/PathPattern.match'):
        sums['path substring'] += c
    elif 'TraceContext.sendUpstream' in stack:
        sums['traceparent'] += c
print(f'total {total/n:.0f} B/request; sites cut: ' + ', '.join(f'{k} {v/n:.0f}' for k, v in sums.items())
      + f' (sum {sum(sums.values())/n:.0f})')
