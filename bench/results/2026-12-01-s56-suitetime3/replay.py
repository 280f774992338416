import sys
# replay a pass: classes in their observed start order, N forks, each takes the next class when free
rows=[l.split() for l in open('/tmp/st3-tl.txt') if len(l.split())==6 and l.split()[3]==sys.argv[1]]
rows.sort(key=lambda r: float(r[0]))
over=dict(a.split('=') for a in sys.argv[2:])
def run(n=2):
    forks=[float(rows[0][0])]*n
    for r in rows:
        d=float(over.get(r[4], r[2])); i=forks.index(min(forks)); forks[i]+=d
    return max(forks)-float(rows[0][0])
print(sys.argv[1], 'span %.1f' % run())
rows.sort(key=lambda r: -float(over.get(r[4], r[2])))
print('longest first: %.1f' % run())
rows.sort(key=lambda r: r[4], reverse=True)
print('reverse alphabetical: %.1f' % run())
