#!/usr/bin/env python3
# W1 at 200 connections (origin 100 ms): the gateway's CPU by thread group over a 20 s window. Usage: w1threads.py DIR...
import subprocess, sys, time, os, re, glob, urllib.request, collections
HZ=os.sysconf('SC_CLK_TCK')
def ready(url, t=30):
    end=time.time()+t
    while time.time()<end:
        try: urllib.request.urlopen(url, timeout=1).read(); return True
        except Exception: time.sleep(0.2)
    return False
def group(n):
    if n.startswith('C2 Compiler'): return 'C2'
    if n.startswith('C1 Compiler'): return 'C1'
    if n.startswith('ForkJoinPool') or n.startswith('loomgate-carrier') or 'carrier' in n.lower(): return 'carriers'
    if n.startswith('VM Thread'): return 'VM(GC)'
    if n.startswith('Read-Poller') or n.startswith('Write-Poller') or 'Poller' in n: return 'pollers'
    return 'other:'+re.sub(r'[-#]?\d+$','',n)
def ticks(pid):
    d=collections.Counter()
    for t in glob.glob(f'/proc/{pid}/task/*'):
        try:
            n=open(t+'/comm').read().strip(); st=open(t+'/stat').read()
            f=st[st.rindex(')')+2:].split()
            d[group(n)]+=int(f[11])+int(f[12])
        except Exception: pass
    return d
backend=subprocess.Popen(['taskset','-c','1','/tmp/loomgate-bench/bin/backend','-addr','127.0.0.1:18080','-latency','100ms'],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)
ready('http://127.0.0.1:18080/hello')
for d in sys.argv[1:]:
    gw=subprocess.Popen(['taskset','-c','0',f'{d}/loomgate','serve','--config',f'{d}/bench/configs/gateway-bench.yaml'],stdout=open(f'/tmp/w1t-{os.path.basename(d)}.log','w'),stderr=subprocess.STDOUT)
    ready('http://127.0.0.1:18081/hello',60)
    pid=subprocess.run(['bash','-c',"ss -ltnpH 'sport = :18081' | sed -n 's/.*pid=\\([0-9]*\\).*/\\1/p' | head -1"],capture_output=True,text=True).stdout.strip()
    wrk=lambda c,dur,path: subprocess.run(['taskset','-c','1','wrk','-t1',f'-c{c}',f'-d{dur}s','--timeout','5s',f'http://127.0.0.1:18081{path}'],capture_output=True,text=True).stdout
    for _ in range(3): wrk(256,5,'/hello')
    wrk(200,5,'/api/data')
    a=ticks(pid); t0=time.time()
    out=wrk(200,20,'/api/data')
    b=ticks(pid); el=time.time()-t0
    req=int(re.search(r'(\d+) requests in',out).group(1))
    tot=sum(b.values())-sum(a.values())
    parts={k:(b[k]-a[k]) for k in b if b[k]-a[k]>0}
    print(f"{os.path.basename(d)}: {req} requests, {tot/HZ:.2f} s CPU, {tot/HZ*1e6/req:.1f} us/req; "+', '.join(f"{k} {v/HZ*1e6/req:.1f}" for k,v in sorted(parts.items(),key=lambda x:-x[1])), flush=True)
    gw.terminate(); gw.wait(timeout=30)
    time.sleep(1)
backend.terminate()
