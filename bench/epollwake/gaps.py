#!/usr/bin/env python3
"""bench/epollwake/account.sh's GAPS=1 table (session 54): from `perf script -F tid,time,trace` of the proxy's
sys_exit_epoll_wait over a short window, the time between one poll that found events and the next one (any thread):
the inter-arrival gaps a spin bounded by time would have to bridge, as percentiles and as the share of gaps (and of
the time in gaps) over each bound."""
import re, sys
times = []
polls = empty = 0
for line in sys.stdin:
    m = re.match(r"\s*(\d+)\s+([\d.]+):.*0x([0-9a-f]+)\s*$", line)
    if not m:
        continue
    polls += 1
    ret = int(m.group(3), 16)
    if ret == 0 or ret > 1 << 31:
        empty += 1
        continue
    times.append(float(m.group(2)))
times.sort()
gaps = sorted((b - a) * 1e6 for a, b in zip(times, times[1:]))
if not gaps:
    print("gaps: no polls with events recorded"); sys.exit()
def pct(p): return gaps[min(len(gaps) - 1, int(p / 100 * len(gaps)))]
print(f"gaps: {polls} polls, {empty} empty, {len(times)} with events over {times[-1] - times[0]:.2f} s")
print("gap us between polls with events: " + ", ".join(f"p{p} {pct(p):.1f}" for p in (10, 25, 50, 75, 90, 95, 99)))
total = sum(gaps)
for b in (5, 10, 20, 50, 100, 200, 500, 1000):
    over = [g for g in gaps if g > b]
    print(f"  over {b:>4} us: {len(over) / len(gaps):6.1%} of gaps, {sum(over) / total:6.1%} of the time")
