#!/usr/bin/env python3
"""perexchange.py DIR...: the gateway's own classes live during the load less after it, as instances per Exchange
(the proxy's one object per exchange) and bytes per instance; 'held by a waiting exchange' = sum over the classes
of size x instances per Exchange, stream classes (io.loomgate.http2, .server, .http) per Http2Stream."""
import sys
from ours import histo
rows = {}
for d in sys.argv[1:]:
    a, b = histo(f'{d}/histo-during.txt'), histo(f'{d}/histo-after.txt')
    diff = {k: (a[k][0] - b.get(k, (0, 0))[0], a[k][1] - b.get(k, (0, 0))[1]) for k in a}
    ex = diff.get('io.loomgate.proxy.Exchange', (0, 0))[0]; st = diff.get('io.loomgate.http2.Http2Stream', (0, 0))[0]
    tot = 0; lines = []
    for k, (c, by) in sorted(diff.items(), key=lambda kv: -kv[1][1]):
        if not (k.startswith('io.loomgate.') or k in ('java.util.concurrent.atomic.AtomicInteger',
                'java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject')):
            continue
        owner = st if k.startswith(('io.loomgate.http2.', 'io.loomgate.server.Http2ServerExchange$StreamBody')) or 'ConditionObject' in k else ex
        per = c / max(owner, 1)
        if per < 0.3 or c <= 0:
            continue
        size = by / c
        tot += size * min(per, 1.5)
        lines.append(f'    {size:6.0f} B x {per:4.2f}  {k}')
    print(f'{d.rsplit("/", 1)[1]}: Exchange {ex}, Http2Stream {st}; held by a waiting exchange (own classes): {tot:.0f} B')
    if '-v' in sys.argv[0] or True:
        print('\n'.join(lines))
