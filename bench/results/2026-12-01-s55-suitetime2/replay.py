import sys, collections
# Replays one pass of a clean-clone run (timeline.py -v output): its classes in the order they started, n JVMs, each
# taking the next class when free (reuseForks); optional slow-down factor for every class (CPU shared by more JVMs).
tl, pas, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
slow = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
order = sys.argv[5] if len(sys.argv) > 5 else 'start'
rs = []
for line in open(tl):
    p = line.split()
    if len(p) == 6 and p[0].replace('.', '').isdigit() and p[3] == pas:
        rs.append((float(p[0]), float(p[2]), p[4]))
rs.sort()
if order == 'name': rs.sort(key=lambda r: r[2])
if order == 'longest': rs.sort(key=lambda r: -r[1])
free = [0.0] * n
for s, d, c in rs:
    i = free.index(min(free)); free[i] += d * slow
print(f'{pas} {n} JVMs x{slow}: span {max(free):.1f} s, JVM ends {sorted(round(f,1) for f in free)}')
