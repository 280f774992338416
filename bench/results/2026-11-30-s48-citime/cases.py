import re, sys
# one line per test case of a surefire XML: time, outcome, name (the captured output left out)
for path in sys.argv[1:]:
    text = open(path, encoding='utf-8', errors='replace').read()
    out = []
    for m in re.finditer(r'<testcase name="([^"]*)" classname="[^"]*" time="([^"]*)"(/>|>(.*?)</testcase>)', text, re.S):
        body = m.group(4) or ''
        st = 'failed' if '<failure' in body or '<error' in body else 'skipped' if '<skipped' in body else 'passed'
        out.append(f'{m.group(2)}\t{st}\t{m.group(1)}')
    with open(path[:-4] + '.cases.txt', 'w') as f:
        f.write('\n'.join(out) + '\n')
    print(path, len(out), sum(1 for o in out if '\tfailed\t' in o), 'failed')
