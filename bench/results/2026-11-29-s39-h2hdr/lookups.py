#!/usr/bin/env python3
"""lookups.py CPU.collapsed...: the share of CPU samples spent in header-name work, per file.

Counted: samples whose leaf frame is a Headers method, or a String compare (equalsIgnoreCase, regionMatches, the
Latin-1 helpers) called from Headers, HopByHop, ForwardedHeaders, FieldNamePatterns or LowerCaseNames; then the same
split by the first gateway frame below Headers (who asked)."""
import sys, collections
OWN = ('io/loomgate/http/Headers.', 'io/loomgate/proxy/HopByHop.', 'io/loomgate/proxy/ForwardedHeaders.isForwarding',
       'io/loomgate/http/FieldNamePatterns.matches', 'io/loomgate/http2/LowerCaseNames.')
STR = ('java/lang/String.equalsIgnoreCase', 'java/lang/String.regionMatches', 'java/lang/StringLatin1.regionMatchesCI',
       'java/lang/String.length', 'java/lang/String.isLatin1', 'java/lang/String.coder', 'java/lang/CharacterDataLatin1',
       'java/lang/Character.toUpperCase', 'java/lang/Character.toLowerCase', 'java/lang/StringLatin1.charAt',
       'java/lang/String.charAt', 'java/lang/Math.min', 'java/util/Arrays.copyOf')
for f in sys.argv[1:]:
    total = 0; hit = 0; by_leaf = collections.Counter(); by_caller = collections.Counter()
    for line in open(f):
        stack, _, cnt = line.rstrip('\n').rpartition(' ')
        if not stack: continue
        c = int(cnt); total += c
        frames = stack.split(';')
        leaf = frames[-1]
        i = len(frames) - 1
        while i >= 0 and frames[i].startswith(STR): i -= 1
        if i < 0 or not frames[i].startswith(OWN): continue
        hit += c; by_leaf[frames[i] if i == len(frames) - 1 else frames[i] + ' > ' + leaf] += c
        j = i
        while j >= 0 and frames[j].startswith(OWN): j -= 1
        by_caller[frames[j] if j >= 0 else '?'] += c
    print(f'{f}: {hit} of {total} samples in header-name work: {100.0 * hit / max(total, 1):.2f}%')
    for k, v in by_leaf.most_common(12): print(f'  {100.0 * v / total:5.2f}%  {k}')
    print('  by caller:')
    for k, v in by_caller.most_common(12): print(f'  {100.0 * v / total:5.2f}%  {k}')
