#!/usr/bin/env python3
"""bench/epollwake/account.sh's table: `perf stat --per-thread -x,` of its six counts, per thread kind, per request.
Arguments: requests in the window, and a file of "nid name" lines (jcmd) to name the threads."""
import os, re, sys
from collections import defaultdict
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from perfstat import per_thread_counts, thread_names
n = int(sys.argv[1])
names = thread_names(sys.argv[2])
cols = ["epoll_wait", "timeout 0", "found 0", "futex wake", "futex wait", "cs"]
rows = defaultdict(lambda: [0] * 6)
seen = defaultdict(int)
for comm, tid, value, event in per_thread_counts(sys.stdin):
    name = names.get(tid, comm)
    kind = re.sub(r"\d+", "N", name)  # carriers, watchdogs: one row per kind
    i = seen[(tid, event)]
    seen[(tid, event)] += 1
    idx = {"syscalls:sys_enter_epoll_wait": 0 + i, "syscalls:sys_exit_epoll_wait": 2,
           "syscalls:sys_enter_futex": 3 + i, "context-switches": 5}.get(event)
    if idx is not None:
        rows[kind][idx] += value
print(f"{'thread':32s}" + "".join(f"{c:>12s}" for c in cols) + "   (per request)")
total = [0] * 6
for kind, v in sorted(rows.items(), key=lambda kv: -sum(kv[1])):
    if sum(v) / n < 0.001:
        continue
    print(f"{kind[:32]:32s}" + "".join(f"{x / n:12.3f}" for x in v))
    total = [a + b for a, b in zip(total, v)]
print(f"{'all shown':32s}" + "".join(f"{x / n:12.3f}" for x in total))
