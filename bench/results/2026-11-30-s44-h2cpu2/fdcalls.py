#!/usr/bin/env python3
"""fdcalls.py PERF_TXT FDS TCP REQUESTS CLIENT_PORT ORIGIN_PORT: perf script's sys_enter/sys_exit pairs summed per
socket side (client, origin, other) and call: calls per request, bytes per call, how many returned EAGAIN."""
import re, sys, collections
perf, fds, tcp, requests, cport, oport = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
inode_side = {}
for line in open(tcp):
    f = line.split()
    if len(f) < 10 or f[0] == 'sl':
        continue
    lport = int(f[1].split(':')[1], 16); rport = int(f[2].split(':')[1], 16)
    inode_side[f[9]] = 'client' if lport == cport else 'origin' if rport == oport else 'listen/other'
fd_side = {}
for line in open(fds):
    fd, inode = line.split()
    fd_side[int(fd)] = inode_side.get(inode, 'socket?')
pending = {}
stats = collections.defaultdict(lambda: [0, 0, 0])  # calls, bytes, eagain
for line in open(perf):
    m = re.match(r'\s*(\d+)\s+syscalls:sys_(enter|exit)_(\w+):\s*(.*)', line)
    if not m:
        continue
    tid, kind, call, rest = m.groups()
    if kind == 'enter':
        fm = re.search(r'fd: (0x[0-9a-f]+)', rest)
        if call == 'epoll_ctl':
            fm = re.search(r'fd: (0x[0-9a-f]+)', rest.split('op:')[1]) if 'op:' in rest else fm
        pending[tid] = (call, int(fm.group(1), 16) if fm else -1)
    else:
        if tid not in pending:
            continue
        c, fd = pending.pop(tid)
        rm = re.search(r'(0x[0-9a-f]+|-?\d+)\s*$', rest)
        ret = int(rm.group(1), 0) if rm else 0
        if ret >= 1 << 63:
            ret -= 1 << 64
        side = fd_side.get(fd, 'other')
        s = stats[(side, c)]
        s[0] += 1
        if ret > 0 and c != 'epoll_ctl':
            s[1] += ret
        if ret == -11:
            s[2] += 1
print(f"{'side':8} {'call':10} {'per req':>8} {'bytes/call':>10} {'EAGAIN':>7}")
for (side, c), (n, b, e) in sorted(stats.items()):
    print(f"{side:8} {c:10} {n / requests:8.3f} {b / max(1, n - e):10.0f} {e / requests:7.3f}")
