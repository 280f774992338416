import glob, os, re, sys
rows = []
for f in glob.glob(sys.argv[1] + '/TEST-*.xml'):
    head = open(f, encoding='utf-8', errors='replace').read(3000)
    m = re.search(r'<testsuite [^>]*name="([^"]+)" time="([0-9.,]+)" tests="(\d+)" errors="(\d+)" skipped="(\d+)" failures="(\d+)"', head)
    end = os.path.getmtime(f); d = float(m.group(2).replace(',', ''))
    rows.append((end - d, end, d, m.group(1).split('.')[-1], int(m.group(3)), int(m.group(4)) + int(m.group(6))))
rows.sort(); t0 = rows[0][0]
print(f"span {max(r[1] for r in rows) - t0:.1f} s, classes {len(rows)}, tests {sum(r[4] for r in rows)}, failed {sum(r[5] for r in rows)}")
for s, e, d, c, n, fl in rows:
    print(f"  {s - t0:6.1f} {e - t0:6.1f} {d:6.1f} {c}")
