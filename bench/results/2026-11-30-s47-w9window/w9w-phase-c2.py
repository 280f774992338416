"""C2 (tier 4) compilations of io.loomgate.* per phase of one run: count and compile wall seconds, and the C2 thread's per-phase seconds as the census gives them"""
import json, subprocess, sys, importlib.util, collections
spec = importlib.util.spec_from_file_location('jc', '/work/wt/w9window/bench/harness-phases/jit-census.py'); jc = importlib.util.module_from_spec(spec); spec.loader.exec_module(jc)
J='/usr/lib/jvm/temurin-25-jdk-amd64/bin/jfr'
for base in sys.argv[1:]:
    ph=[(l.split()[0], float(l.split()[1]), float(l.split()[2])) for l in open(base+'.phases') if len(l.split())>=3]
    ev=json.loads(subprocess.run([J,'print','--json','--events','jdk.Compilation',base+'.jfr'],capture_output=True,text=True).stdout)['recording']['events']
    c=collections.OrderedDict((p[0],[0,0.0]) for p in [('start',0,0)]+ph)
    for e in ev:
        v=e['values']
        if v['compileLevel']!=4: continue
        n=v['method']['type']['name']
        if not n.startswith('io/loomgate'): continue
        t=jc.epoch(v['startTime']); lab='start'
        for p in ph:
            if t>=p[1]: lab=p[0]
        c[lab][0]+=1; c[lab][1]+=jc.seconds(v['duration'])
    print(base, ' '.join(f"{k}:{a}/{b:.1f}s" for k,(a,b) in c.items()))
