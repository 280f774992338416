import glob, re, sys, html
root = sys.argv[1]
tot = [0,0,0,0]
for f in sorted(glob.glob(root + '/**/target/*-reports*/TEST-*.xml', recursive=True)):
    s = open(f, encoding='utf-8', errors='replace').read()
    m = re.search(r'<testsuite [^>]*name="([^"]+)" time="([0-9.,]+)" tests="(\d+)" errors="(\d+)" skipped="(\d+)" failures="(\d+)"', s[:3000])
    if not m: continue
    tot[0]+=int(m.group(3)); tot[1]+=int(m.group(4)); tot[2]+=int(m.group(5)); tot[3]+=int(m.group(6))
    for tc in re.finditer(r'<testcase name="([^"]*)" classname="([^"]*)"[^>]*?(?:/>|>(.*?)</testcase>)', s, re.S):
        body = tc.group(3) or ''
        fm = re.search(r'<(failure|error)(?: message="([^"]*)")?', body)
        if fm:
            print(f'{f.split("/target/")[0].split("/")[-1]}:{f.split("/target/")[1].split("/")[0]} {tc.group(2)}.{html.unescape(tc.group(1))}: {fm.group(1)}: {html.unescape(fm.group(2) or "")[:400]}')
print('tests %d errors %d skipped %d failures %d' % tuple(tot))
