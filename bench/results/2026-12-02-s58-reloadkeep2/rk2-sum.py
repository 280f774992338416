import glob, re, sys, os
# one row per run: label, requests, GC-log B/request, profiler total B/request, ProxyFailure.<init> (the stack-trace fill), Exchange, AccessEntry
rows=[]
for d in sorted(glob.glob(sys.argv[1] + '/w2-*')):
    s=open(d+'/summary.txt').read().splitlines()
    m=re.match(r'(\S+) w2 (\S+): (\d+) requests, GC log: (\d+) B/request, CPU (\S+) us/request \(load (\S+)\)', s[0])
    t, label, n, gc, cpu, load = m.groups()
    tot=re.match(r'total \d+, per request (\S+)', s[1]).group(1)
    def site(pat):
        return sum(float(l.split()[1]) for l in s[2:] if re.search(pat, l))
    rows.append((t, label, n, gc, tot, site(r'<-  io/loomgate/proxy/ProxyFailure\.<init>'), site(r'proxy\.Exchange_\[i\]'), site(r'AccessEntry_\[i\]'), load))
print('| time | run | requests | GC log B/req | profiler B/req | ProxyFailure.<init> arrays B/req | Exchange B/req | AccessEntry B/req | load |')
print('|---|---|---|---|---|---|---|---|---|')
for r in sorted(rows, key=lambda r: r[0]):
    print('| ' + ' | '.join(str(x) if not isinstance(x,float) else ('%.1f'%x) for x in r) + ' |')
