#!/usr/bin/env python3
"""groups.py FILE.collapsed: share of the user CPU samples whose stack holds a frame of each group (inclusive)."""
import sys, re, collections
G = {'HPACK (Hpack*, Huffman, StaticTable, LowerCaseNames)': r'io/loomgate/http2/(Hpack|Huffman|StaticTable|LowerCaseNames)',
     'frame codec (FrameReader, FrameWriter, FrameInput), with the socket calls under it': r'io/loomgate/http2/(FrameReader|FrameWriter|FrameInput)\.',
     'stream bookkeeping (StreamTable, ServerFrames.open)': r'io/loomgate/http2/(StreamTable|ServerFrames\.open)',
     'logging MDC (LogContext)': r'io/loomgate/proxy/LogContext',
     'trace ids (TraceContext)': r'io/loomgate/proxy/TraceContext',
     'metrics (io/loomgate/observe)': r'io/loomgate/observe/',
     'stream thread start (ConnectionExecutors.startVirtual)': r'io/loomgate/threads/ConnectionExecutors\.startVirtual',
     'forwarding fields (ForwardedHeaders, cleanForwardingFields)': r'io/loomgate/proxy/(ForwardedHeaders|ProxyHandler\.cleanForwardingFields)',
     'upstream pool (UpstreamPool, PooledConnection)': r'io/loomgate/upstream/(UpstreamPool|PooledConnection)'}
cnt = collections.Counter(); user = 0
for line in open(sys.argv[1]):
    stack, _, c = line.rstrip('\n').rpartition(' ')
    if not stack: continue
    c = int(c); fr = stack.split(';')
    if fr[-1].endswith('_[k]'): continue
    user += c
    for k, rx in G.items():
        if re.search(rx, stack): cnt[k] += c
for k in G: print(f'{100*cnt[k]/user:5.1f}%  {k}')
