#!/usr/bin/env python3
"""bench/w8split/run.sh's summary for one window: CPU by thread kind (from /proc/PID/task/*/stat before and after),
system calls by name and by thread kind (perf stat --per-thread), context switches, and the JVM's GC, compilation and
safepoint counters; each per second and per request.
Arguments: the window's file prefix, requests done, window seconds, a label."""
import os, re, sys
from collections import defaultdict
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from perfstat import per_thread_counts, thread_names

prefix, n, secs, label = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
try:
    names = thread_names(prefix + ".names")
except FileNotFoundError:
    names = {}


def kind(tid, comm):
    name = names.get(tid, comm)
    if name.startswith("ForkJoinPool") or "worker" in name and "ForkJoin" in comm:
        return "carriers (ForkJoinPool-N-worker-N)"
    return re.sub(r"\d+", "N", name)


def threads(path):
    rows = {}
    for line in open(path):
        tid, comm, u, s, rt = line.split()
        rows[int(tid)] = (comm, int(u), int(s), int(float(rt)))
    return rows


t0, t1 = threads(prefix + ".threads0"), threads(prefix + ".threads1")
cpu = defaultdict(lambda: [0, 0, 0, 0])  # user ticks, kernel ticks, threads, runtime ns (schedstat)
for tid, (comm, u, s, rt) in t1.items():
    _, u0, s0, rt0 = t0.get(tid, (comm, 0, 0, 0))
    k = cpu[kind(tid, comm)]
    k[0] += u - u0; k[1] += s - s0; k[2] += 1; k[3] += rt - rt0

calls = defaultdict(int)            # syscall name -> count
by_kind = defaultdict(lambda: defaultdict(int))  # kind -> event -> count
for comm, tid, value, event in per_thread_counts(open(prefix + ".perf")):
    if value == 0:
        continue
    event = event.replace("syscalls:sys_enter_", "")
    k = kind(tid, comm)
    if event != "context-switches":
        calls[event] += value
        by_kind[k]["all syscalls"] += value
    by_kind[k][event] += value

per = lambda v: f"{v / secs:10.1f}/s" + (f" {v / n:8.3f}/req" if n else "")
print(f"## {label}: {n} requests in {secs:.1f} s ({n / secs:.0f}/s)")
tu = sum(v[0] for v in cpu.values()); ts = sum(v[1] for v in cpu.values())
print(f"CPU all threads: {(tu + ts) * 10 / secs:.1f} ms/s (user {tu * 10 / secs:.1f}, kernel {ts * 10 / secs:.1f})"
      + (f", {(tu + ts) * 10000 / n:.1f} us/req (user {tu * 10000 / n:.1f}, kernel {ts * 10000 / n:.1f})" if n else ""))
rt_all = sum(v[3] for v in cpu.values())
print(f"CPU all threads by schedstat (exact): {rt_all / 1e6 / secs:.1f} ms/s" + (f", {rt_all / 1e3 / n:.1f} us/req" if n else ""))
print("CPU by thread kind: schedstat ms/s, us/req; the ticks' ms/s (user, kernel); threads:")
for k, (u, s, c, rt) in sorted(cpu.items(), key=lambda kv: -kv[1][3]):
    if u + s == 0 and rt < secs * 1e5:
        continue
    print(f"  {k:40s} {rt / 1e6 / secs:7.2f} ms/s" + (f" {rt / 1e3 / n:6.2f} us/req" if n else "")
          + f"   ticks {(u + s) * 10 / secs:6.1f} ms/s ({u * 10 / secs:.1f}, {s * 10 / secs:.1f})  [{c}]")
total = sum(calls.values())
cs = sum(v.get("context-switches", 0) for v in by_kind.values())
print(f"system calls: {per(total)}; context switches: {per(cs)}")
for name, v in sorted(calls.items(), key=lambda kv: -kv[1])[:16]:
    print(f"  {name:24s} {per(v)}")
print("by thread kind (all syscalls, futex, context switches):")
for k, ev in sorted(by_kind.items(), key=lambda kv: -kv[1].get("all syscalls", 0)):
    top = ", ".join(f"{e} {v / secs:.0f}/s" for e, v in sorted(ev.items(), key=lambda kv: -kv[1])
                    if e not in ("all syscalls", "context-switches"))
    print(f"  {k:40s} all {per(ev.get('all syscalls', 0))}  futex {per(ev.get('futex', 0))}"
          f"  cs {per(ev.get('context-switches', 0))}\n      {top[:200]}")


def jvm(path):
    d = {}
    try:
        for line in open(path):
            key, _, v = line.strip().partition("=")
            d[key] = int(v.strip('"')) if v.strip('"').lstrip("-").isdigit() else v
    except FileNotFoundError:
        pass
    return d


j0, j1 = jvm(prefix + ".jvm0"), jvm(prefix + ".jvm1")
if j1:
    hz = j1.get("sun.os.hrt.frequency", 1_000_000_000)
    d = lambda key: j1.get(key, 0) - j0.get(key, 0)
    for c in range(3):
        inv = d(f"sun.gc.collector.{c}.invocations")
        if f"sun.gc.collector.{c}.invocations" in j1:
            print(f"GC collector {c}: {inv} collections, {d(f'sun.gc.collector.{c}.time') * 1000 / hz:.1f} ms"
                  + (f" ({n / inv:.0f} requests per collection)" if inv and n else ""))
    print(f"compilations {d('sun.ci.totalCompiles')} ({d('sun.ci.totalTime') * 1000 / hz:.1f} ms), "
          f"safepoints {d('sun.rt.safepoints')} ({d('sun.rt.safepointTime') * 1000 / hz:.1f} ms), "
          f"live threads {j1.get('java.threads.live')}")
