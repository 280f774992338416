import json,sys,datetime,subprocess
J='/usr/lib/jvm/temurin-25-jdk-amd64/bin/jfr'
jfr,phases=sys.argv[1],sys.argv[2]
ph=[l.split() for l in open(phases)]
ev=json.loads(subprocess.run([J,'print','--json','--events','jdk.Compilation',jfr],capture_output=True,text=True).stdout)['recording']['events']
def ts(s):
    s=s.rstrip('Z'); base,frac=(s.split('.')+['0'])[:2]
    return datetime.datetime.strptime(base,'%Y-%m-%dT%H:%M:%S').replace(tzinfo=datetime.timezone.utc).timestamp()+float('0.'+frac)
def phase(t):
    for p in ph:
        if t < float(p[2]): return p[0] if t>=float(p[1]) else 'pre-'+p[0]
    return 'after'
want=sys.argv[3] if len(sys.argv)>3 else 'warm-2'
osr={}
for e in ev:
    v=e['values']
    if v['compileLevel']!=4: continue
    t=ts(v['startTime']); p=phase(t)
    m=v['method']['type']['name'].replace('/','.')+'::'+v['method']['name']
    if v.get('isOsr'): osr.setdefault(p,[]).append(m)
    if p==want:
        d=v['duration'][2:-1]
        print(f"{p} {'OSR ' if v.get('isOsr') else ''}{m} code={v.get('codeSize')} inl={v.get('inlinedBytes')} dur={d}")
for p,l in osr.items(): print('OSR',p,len(l),sorted(set(l))[:40])
