#!/usr/bin/env python3
"""sites51.py FILE.collapsed.gz|FILE.collapsed REQUESTS: bytes per request (async-profiler's sampled allocation, total
bytes) of the sites session 51 (h2resp) cuts, and of the sites whose allocation C2's escape analysis removes in some
runs and not others (they move the sampled total by tens of bytes between runs of one jar):
  response block   the HPACK block of a response built in a HeaderBlock (Http2Stream.encode; the array and its
                   growth), or grown in the frame writer's batch (FrameWriter.appendResponseBlock, the branch's)
  content-length   the Content-Length value made per response (Long.toString under the exchanges' sendHead)
  headers arrays   the String[] and byte[] of Headers (made or grown), any message's
  EA-dependent     FilterChains$Link, route.MatchContext, the route matching's list iterators"""
import gzip, sys
f, n = sys.argv[1], float(sys.argv[2])
op = gzip.open if f.endswith('.gz') else open
keys = ['response block', 'content-length', 'headers arrays', 'EA-dependent']
sums = dict.fromkeys(keys, 0)
total = 0
for line in op(f, 'rt'):
    stack, _, cnt = line.rstrip('\n').rpartition(' ')
    c = int(cnt); total += c
    frames = stack.split(';')
    leaf = frames[-1]
    if 'Http2Stream.encode' in stack or 'FrameWriter.appendResponseBlock' in stack or 'HeaderBlock.<init>' in stack:
        sums['response block'] += c
    elif 'Long.toString' in stack and ('setContentLength' in stack or 'ServerExchange.sendHead' in stack):
        sums['content-length'] += c
    elif leaf.startswith(('java.lang.String[]', 'byte[]')) and len(frames) > 1 and (
            frames[-2].startswith('io/loomgate/http/Headers.<init>') or frames[-2].startswith('io/loomgate/http/Headers.add')
            or (frames[-2].startswith('java/util/Arrays.copyOf') and 'io/loomgate/http/Headers.add' in frames[-3])):
        sums['headers arrays'] += c
    elif leaf.startswith(('io.loomgate.filter.FilterChains$Link', 'io.loomgate.route.MatchContext')) or (
            leaf.startswith('java.util.ImmutableCollections$ListItr') and 'io/loomgate/route/' in stack):
        sums['EA-dependent'] += c
print(f'total {total/n:.0f} B/request; ' + ', '.join(f'{k} {v/n:.0f}' for k, v in sums.items()))
