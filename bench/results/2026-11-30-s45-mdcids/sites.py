#!/usr/bin/env python3
"""sites.py FILE.collapsed REQUESTS: bytes per request of the two sites this task cuts (the MDC: frames of
LogContext/ExchangeMdc/ThreadMarks/logback's MDC adapter; the trace ids: frames of TraceContext), from async-profiler's
collapsed allocation samples (total bytes), and the total."""
import sys
f, n = sys.argv[1], float(sys.argv[2])
mdc = trace = total = 0
for line in open(f):
    stack, _, cnt = line.rstrip('\n').rpartition(' ')
    c = int(cnt); total += c
    if any(k in stack for k in ('proxy/LogContext', 'proxy/ExchangeMdc', 'threads/ThreadMarks', 'LogbackMDCAdapter')):
        mdc += c
    elif 'proxy/TraceContext' in stack:
        trace += c
print(f'total {total/n:.0f} B/request, MDC {mdc/n:.0f}, trace ids {trace/n:.0f}')
