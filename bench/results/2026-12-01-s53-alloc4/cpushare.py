#!/usr/bin/env python3
"""cpushare.py FILE.collapsed[.gz]: shares (of all samples, then of those with a Java frame) of async-profiler's CPU samples: the gateway's own code (the leaf-most Java
frame in io/loomgate, i.e. self time in our methods), the JDK's and the JVM's (native leaf frames), and, inclusive,
the sites session 53 (alloc4) touched: FrameReader (reading frames and decoding blocks, HpackDecoder under it
included), StreamTable, and HashMap/Integer.equals/Integer.hashCode with an h2 client or server frame below them."""
import gzip, sys
f = sys.argv[1]
op = gzip.open if f.endswith('.gz') else open
total = ours = jdk = other = 0
reader = table = boxed = 0
for line in op(f, 'rt'):
    stack, _, cnt = line.rstrip('\n').rpartition(' ')
    c = int(cnt); total += c
    frames = stack.split(';')
    java = [x for x in frames if '/' in x and '.' in x and not x.endswith('_[k]')]
    leaf = java[-1] if java else ''
    if leaf.startswith('io/loomgate/'):
        ours += c
    elif leaf:
        jdk += c
    else:
        other += c
    if any(x.startswith('io/loomgate/http2/FrameReader.') for x in frames):
        reader += c
    if any(x.startswith('io/loomgate/http2/StreamTable.') for x in frames):
        table += c
    if any(x.startswith(('java/util/HashMap.', 'java/lang/Integer.equals', 'java/lang/Integer.hashCode', 'java/lang/Integer.valueOf')) for x in frames) \
            and any(x.startswith('io/loomgate/http2/') for x in frames):
        boxed += c
p = lambda v: f'{100.0 * v / total:.1f}%'
print(f'samples {total}; leaf in io/loomgate {p(ours)}, other Java {p(jdk)}, no Java frame {p(other)}; '
      f'inclusive: FrameReader {p(reader)}, StreamTable {p(table)}, HashMap/Integer under http2 {p(boxed)}')
# The JVM's own threads (JIT compilers, GC: stacks without a Java frame) took most samples at load 25 with a 15 s
# warm-up; the shares of the samples in Java threads say more about the gateway's own code.
j = total - other
q = lambda v: f'{100.0 * v / j:.1f}%'
print(f'of the {j} samples with a Java frame: leaf in io/loomgate {q(ours)}; inclusive FrameReader {q(reader)}, '
      f'StreamTable {q(table)}, HashMap/Integer under http2 {q(boxed)}')
