#!/usr/bin/env python3
"""ours.py DIR...: per run, the gateway's own objects live during the load less after it, per Http2Stream open
(io.loomgate.* classes and their lambdas; the lock conditions and atomics they make), and the JDK's per-thread
objects apart. Steadier than the whole-heap difference, which holds the heap's filler arrays and the TLS state."""
import sys, collections
def histo(f):
    m = {}
    for line in open(f):
        p = line.split()
        if len(p) >= 4 and p[0].endswith(':') and p[0][:-1].isdigit():
            k = p[3].split('/0x')[0]
            c, b = m.get(k, (0, 0)); m[k] = (c + int(p[1]), b + int(p[2]))
    return m
OURS_JDK = ('java.util.concurrent.atomic.AtomicInteger', 'java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject')
THREAD = ('java.lang.VirtualThread', 'java.lang.VirtualThread$VThreadContinuation', 'java.lang.VirtualThread$VThreadContinuation$1',
          'java.lang.VirtualThread$$Lambda', 'java.util.concurrent.ForkJoinTask$AdaptedRunnableAction',
          'java.util.concurrent.ConcurrentHashMap$Node')
def main():
  for d in sys.argv[1:]:
        a, b = histo(f'{d}/histo-during.txt'), histo(f'{d}/histo-after.txt')
        diff = {k: (a[k][0] - b.get(k, (0, 0))[0], a[k][1] - b.get(k, (0, 0))[1]) for k in a}
        n = diff.get('io.loomgate.http2.Http2Stream', (0, 0))[0]
        ours = {k: v for k, v in diff.items() if (k.startswith('io.loomgate.') or k in OURS_JDK) and v[0] > 0.05 * n}
        ours_b = sum(v[1] for v in ours.values()); ours_c = sum(v[0] for v in ours.values())
        thr = sum(diff.get(k, (0, 0))[1] for k in THREAD)
        sc = diff.get('jdk.internal.vm.StackChunk', (0, 0))
        arr = sum(diff.get(k, (0, 0))[1] for k in ('[B', '[Ljava.lang.String;', 'java.lang.String'))
        print(f'{d.rsplit("/", 1)[1]}: streams {n}; ours {ours_b / n:.0f} B in {ours_c / n:.2f} objects per stream; '
              f'JDK thread objects {thr / n:.0f} B; StackChunk {sc[1] / n:.0f} B ({sc[0] / n:.2f}, {sc[1] / max(sc[0], 1):.0f} B each); '
              f'String/byte[]/String[] {arr / n:.0f} B')
        if '-v' in sys.argv[0:1] or len(sys.argv) == 2:
            for k, v in sorted(ours.items(), key=lambda kv: -kv[1][1]):
                print(f'    {v[1] / n:7.1f} B ({v[0] / n:4.2f})  {k}')

if __name__ == '__main__':
    main()
