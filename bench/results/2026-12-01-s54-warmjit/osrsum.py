import json,sys,datetime,subprocess
J='/usr/lib/jvm/temurin-25-jdk-amd64/bin/jfr'
def ts(s):
    s=s.rstrip('Z'); base,frac=(s.split('.')+['0'])[:2]
    return datetime.datetime.strptime(base,'%Y-%m-%dT%H:%M:%S').replace(tzinfo=datetime.timezone.utc).timestamp()+float('0.'+frac)
for jfr in sys.argv[1:]:
    ph=[l.split() for l in open(jfr.replace('.jfr','.phases'))]
    ev=json.loads(subprocess.run([J,'print','--json','--events','jdk.Compilation',jfr],capture_output=True,text=True).stdout)['recording']['events']
    def phase(t):
        for p in ph:
            if t < float(p[2]): return p[0] if t>=float(p[1]) else 'pre'
        return 'after'
    agg={}
    for e in ev:
        v=e['values']
        if v['compileLevel']!=4: continue
        p=phase(ts(v['startTime'])); k=(p,bool(v.get('isOsr')))
        d=float(v['duration'][2:-1]) if v['duration'].endswith('S') and 'M' not in v['duration'] else 0
        a=agg.setdefault(k,[0,0.0,0]); a[0]+=1; a[1]+=d; a[2]+=v.get('codeSize') or 0
    out=[]
    for p in ['pre']+[x[0] for x in ph]:
        n=agg.get((p,False),[0,0,0]); o=agg.get((p,True),[0,0,0])
        out.append(f"{p}: C2 {n[0]} ({n[1]:.2f}s {n[2]//1024}KB) OSR {o[0]} ({o[1]:.2f}s {o[2]//1024}KB)")
    print(jfr.split('/')[-1], ' | '.join(out))
