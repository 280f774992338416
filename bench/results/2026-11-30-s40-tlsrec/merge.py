import re, sys, collections
# Classifies an strace -f log of the gateway: reads by size and result (EAGAIN/ok), writes by size, epoll_ctl by op.
# fd 36 was the config directory's inotify descriptor in the run kept here (strace wrote into that directory).
pend = {}
c = collections.Counter()
fdsz = collections.Counter()
for line in open(sys.argv[1], errors='replace'):
    m = re.match(r'(\d+)\s+(.*)', line.rstrip('\n'))
    if not m: continue
    pid, rest = m.groups()
    if rest.endswith('<unfinished ...>'):
        pend[pid] = rest[:-len('<unfinished ...>')]; continue
    r = re.match(r'<\.\.\. (\w+) resumed>(.*)', rest)
    if r:
        rest = pend.pop(pid, r.group(1) + '(?, ') + r.group(2)
    call = re.match(r'(\w+)\((\d+)?', rest)
    if not call: continue
    name, fd = call.group(1), call.group(2)
    if name == 'read' and fd == '36': continue
    res = rest.rsplit('= ', 1)[-1]
    if name == 'read':
        sz = re.search(r', (\d+)\)\s+=', rest)
        sz = sz.group(1) if sz else '?'
        c['read size %s %s' % (sz, 'EAGAIN' if 'EAGAIN' in res else ('EOF' if res.strip().startswith('0') else 'ok'))] += 1
    elif name == 'write':
        n = int(res.split()[0]) if res.split()[0].lstrip('-').isdigit() else -1
        c['write ' + ('<100' if n < 100 else '<400' if n < 400 else '<2000' if n < 2000 else '>=2000')] += 1
    elif name == 'epoll_ctl':
        op = re.search(r'EPOLL_CTL_\w+', rest); c['epoll_ctl ' + (op.group(0) if op else '?')] += 1
    else:
        c[name] += 1
for k, v in sorted(c.items(), key=lambda x: -x[1]): print(v, k)
