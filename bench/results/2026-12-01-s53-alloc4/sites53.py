#!/usr/bin/env python3
"""sites53.py FILE.collapsed[.gz] REQUESTS: bytes per request (async-profiler's sampled allocation, total bytes) of the
sites session 53 (alloc4) cuts, and the total:
  frame      arrays made by FrameReader.readFrame itself (a payload per frame; on the branch only DATA, SETTINGS, PING,
             GOAWAY and frames over 4 KiB) or under FrameReader.onHeaders/onContinuation (a block copied out)
  table      the stream tables' arrays (StreamTable.put/grow), both roles
  map        the upstream client's HashMap<Integer, ...>: HashMap$Node/HashMap$Node[]/HashMap under Http2ClientConnection
             and every Integer made under Http2ClientConnection or ClientFrames (the boxed keys of its lookups)"""
import gzip, sys
f, n = sys.argv[1], float(sys.argv[2])
op = gzip.open if f.endswith('.gz') else open
keys = ['frame', 'table', 'map']
sums = dict.fromkeys(keys, 0)
total = 0
for line in op(f, 'rt'):
    stack, _, cnt = line.rstrip('\n').rpartition(' ')
    c = int(cnt); total += c
    frames = stack.split(';')
    leaf = frames[-1]
    ours = [x for x in frames if x.startswith('io/loomgate/')]
    inner = ours[-1] if ours else ''
    if leaf.startswith('byte[]') and (inner.startswith('io/loomgate/http2/FrameReader.readFrame')
                                      or inner.startswith('io/loomgate/http2/FrameReader.payloadArray')
                                      or inner.startswith('io/loomgate/http2/FrameReader.onHeaders')
                                      or inner.startswith('io/loomgate/http2/FrameReader.onContinuation')):
        sums['frame'] += c
    elif inner.startswith('io/loomgate/http2/StreamTable.'):
        sums['table'] += c
    elif (leaf.startswith('java.util.HashMap') and 'Http2ClientConnection' in inner) or (
            leaf.startswith('java.lang.Integer_') and ('Http2ClientConnection' in stack or 'ClientFrames' in stack)):
        sums['map'] += c
print(f'total {total/n:.0f} B/request; ' + ', '.join(f'{k} {v/n:.0f}' for k, v in sums.items()))
