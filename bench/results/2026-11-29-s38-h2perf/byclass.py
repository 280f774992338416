#!/usr/bin/env python3
"""byclass.py REQUESTS A.collapsed [B.collapsed ...]: allocation per request by the first gateway class on the stack
(io/loomgate/...Class, nested classes folded into their outer one), one column per file, largest first."""
import sys, collections
n = float(sys.argv[1]); cols = []
for f in sys.argv[2:]:
    agg = collections.Counter(); total = 0
    for line in open(f):
        stack, _, cnt = line.rstrip('\n').rpartition(' ')
        if not stack: continue
        c = int(cnt); total += c; frames = stack.split(';')
        own = next((fr for fr in reversed(frames[:-1]) if fr.startswith('io/loomgate')), '(no gateway frame)')
        agg[own.rsplit('.', 1)[0].split('$')[0].replace('io/loomgate/', '')] += c
    agg['TOTAL'] = total; cols.append(agg)
keys = sorted(set().union(*cols), key=lambda k: -max(c[k] for c in cols))
for k in keys[:int(sys.argv[0] and 40)]:
    print('%-45s' % k + ''.join('%9.0f' % (c[k] / n) for c in cols))
