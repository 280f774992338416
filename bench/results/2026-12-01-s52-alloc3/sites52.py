#!/usr/bin/env python3
"""sites52.py FILE.collapsed[.gz] REQUESTS: bytes per request (async-profiler's sampled allocation, total bytes) of the
sites session 52 (alloc3) cuts, and the total:
  names        anything allocated while encoding an origin request's block or its trailers'
               (Http2ClientStream.encodeRequest/encodeTrailers: on main the lower-case copies of the names, toLowerCase
               inlined; a block outgrowing the writer's buffer would count too), and toLowerCase under a response's
               (ResponseBlock.encode)
  hpack pos    the HPACK decoder's read position (HpackDecoder$Cursor) made per block
  hpack array  the array Huffman-coded strings are decoded into (made in HpackDecoder$Cursor.string itself)
  hpack strings the decoded strings themselves (String.<init> under Cursor.string): not cut, for comparison"""
import gzip, sys
f, n = sys.argv[1], float(sys.argv[2])
op = gzip.open if f.endswith('.gz') else open
keys = ['names', 'hpack pos', 'hpack array', 'hpack strings']
sums = dict.fromkeys(keys, 0)
total = 0
for line in op(f, 'rt'):
    stack, _, cnt = line.rstrip('\n').rpartition(' ')
    c = int(cnt); total += c
    frames = stack.split(';')
    leaf = frames[-1]
    if ('Http2ClientStream.encodeRequest' in stack or 'Http2ClientStream.encodeTrailers' in stack
            or ('ResponseBlock.encode' in stack and 'toLowerCase' in stack)):
        sums['names'] += c
    elif leaf.startswith('io.loomgate.http2.HpackDecoder$Cursor'):
        sums['hpack pos'] += c
    elif leaf.startswith('byte[]') and frames[-2].startswith('io/loomgate/http2/HpackDecoder$Cursor.string'):
        sums['hpack array'] += c
    elif 'HpackDecoder$Cursor.string' in stack:
        sums['hpack strings'] += c
print(f'total {total/n:.0f} B/request; ' + ', '.join(f'{k} {v/n:.0f}' for k, v in sums.items()))
