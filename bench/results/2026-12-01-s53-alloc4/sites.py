#!/usr/bin/env python3
"""sites.py FILE.collapsed REQUESTS: bytes per request of the sites session 47 (h2alloc) cuts, from async-profiler's
collapsed allocation samples (total bytes): Headers (an allocation whose innermost gateway frame is in http/Headers),
the traceparent (frames of TraceContext.sendUpstream), the stream's virtual thread (ConnectionExecutors.startVirtual), the
HTTP/1.1 field values (FieldLines.parseLine, RecentValues), the Forwarded element (ForwardedHeaders.forwardedElement),
and the total."""
import sys
f, n = sys.argv[1], float(sys.argv[2])
sums = {'headers': 0, 'traceparent': 0, 'thread': 0, 'http1 values': 0, 'forwarded element': 0}
total = 0
for line in open(f):
    stack, _, cnt = line.rstrip('\n').rpartition(' ')
    c = int(cnt); total += c
    frames = stack.split(';')
    own = next((fr for fr in reversed(frames[:-1]) if fr.startswith('io/loomgate')), '')
    if own.startswith('io/loomgate/http/Headers'):
        sums['headers'] += c
    elif 'TraceContext.sendUpstream' in stack:
        sums['traceparent'] += c
    elif own.startswith('io/loomgate/threads/ConnectionExecutors.startVirtual'):
        sums['thread'] += c
    elif own.startswith(('io/loomgate/http1/FieldLines.parseLine', 'io/loomgate/http1/RecentValues')):
        sums['http1 values'] += c
    elif own.startswith('io/loomgate/proxy/ForwardedHeaders.forwardedElement'):
        sums['forwarded element'] += c
print(f'total {total/n:.0f} B/request, ' + ', '.join(f'{k} {v/n:.0f}' for k, v in sums.items()))
