import sys, collections
# Replays run 35's passes with some classes' times replaced: the classes in the order they started in run 35, each
# JVM taking the next one when it is free (surefire's reuseForks), as many JVMs as the pass had.
tl, new = sys.argv[1], dict(a.split('=') for a in sys.argv[2:])   # new: pass:Class=seconds
rows = collections.defaultdict(list)
for line in open(tl):
    p = line.split()
    if len(p) == 6 and p[0].replace('.', '').isdigit():
        rows[p[3]].append((float(p[0]), float(p[2]), p[4]))
jvms = {'loomgate-epoll:surefire-reports': 1, 'loomgate-resilience4j:surefire-reports': 1,
        'examples/embedded-gateway:surefire-reports': 1}
total_old = total_new = 0
for pas, rs in rows.items():
    rs.sort()
    n = jvms.get(pas, 2)
    def span(durs):
        free = [0.0] * n
        for d in durs:
            i = free.index(min(free)); free[i] += d
        return max(free)
    old = span([d for s, d, c in rs])
    nw = span([float(new.get(pas + ':' + c, d)) for s, d, c in rs])
    total_old += old; total_new += nw
    if abs(old - nw) > 0.05:
        print(f'{pas}: replayed span {old:.1f} s -> {nw:.1f} s')
print(f'sum of the replayed spans {total_old:.1f} -> {total_new:.1f} s (saved {total_old - total_new:.1f} s)')
