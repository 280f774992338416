import sys,re
# per run: requests, CPU-weighted us/req, C2 s (/proc), C1 s, C2/C1 compilations started over all rounds
runs={}; order=[]
for l in open(sys.argv[1]):
    f=l.split()
    if len(f)>=15 and re.match(r'warm-\d|pre-3s|WINDOW|more-\d',f[2]) and f[1].isdigit():
        k=(f[0],f[1])
        if k not in runs: runs[k]={'req':0,'cpu':0.0,'c1':0.0,'c2':0.0,'rates':[],'load':[]}; order.append(k)
        r=runs[k]; n=int(f[4]); r['req']+=n; r['cpu']+=float(f[7])*n/1e6; r['c1']+=float(f[9]); r['c2']+=float(f[10]); r['rates'].append(int(f[5])); r['load'].append(float(f[14]))
    m=re.match(r'\s+compilations started per phase:(.*)',l)
    if m and order:
        c2=sum(int(x) for x in re.findall(r'C2 (\d+)',m.group(1))); c1=sum(int(x) for x in re.findall(r'C1 (\d+)',m.group(1)))
        runs[order[-1]]['comp']=(c2,c1,re.findall(r'C2 (\d+)',m.group(1)))
print(f"{'proxy':14} rd  requests  CPU_s  C2_s  C1_s  C2n  C1n  C2 per round               req/s per round                          load")
for k in order:
    r=runs[k]; c=r.get('comp',(0,0,[]))
    print(f"{k[0]:14} {k[1]:>2} {r['req']:9d} {r['cpu']:6.2f} {r['c2']:5.1f} {r['c1']:5.1f} {c[0]:4d} {c[1]:4d}  {' '.join(c[2]):26} {' '.join(str(x) for x in r['rates']):40} {min(r['load']):.1f}-{max(r['load']):.1f}")
