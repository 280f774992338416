import glob, os, re, sys, datetime
root = sys.argv[1]
rows = []
for d in sorted(glob.glob(root + '/**/target/*-reports*', recursive=True)):
    for f in glob.glob(d + '/TEST-*.xml'):
        head = open(f, encoding='utf-8', errors='replace').read(2000)
        m = re.search(r'<testsuite [^>]*name="([^"]+)" time="([0-9.,]+)" tests="(\d+)" errors="(\d+)" skipped="(\d+)" failures="(\d+)"', head)
        if not m: continue
        end = os.path.getmtime(f); dur = float(m.group(2).replace(',', ''))
        pass_ = os.path.relpath(d, root).replace('/target/', ':')
        rows.append((end - dur, end, dur, pass_, m.group(1).split('.')[-1], int(m.group(3))))
rows.sort()
t0 = float(sys.argv[2]) if len(sys.argv) > 2 else rows[0][0]
# per pass: first start, last end, sum of class times
passes = {}
for s, e, d, p, c, n in rows:
    a = passes.setdefault(p, [s, e, 0.0, 0, 0])
    a[0] = min(a[0], s); a[1] = max(a[1], e); a[2] += d; a[3] += 1; a[4] += n
print('pass  start  end  span  sum-of-class-times  classes  tests')
for p, (s, e, d, k, n) in sorted(passes.items(), key=lambda x: x[1][0]):
    print(f'{p:50s} {s-t0:7.1f} {e-t0:7.1f} {e-s:7.1f} {d:8.1f} {k:4d} {n:5d}')
if '-v' in sys.argv:
    for s, e, d, p, c, n in rows:
        print(f'{s-t0:7.1f} {e-t0:7.1f} {d:7.1f} {p:45s} {c} {n}')
