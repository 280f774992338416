# per pass (reports folder): wall (first class start -> last class end), class-seconds, and the Maven tree's CPU
# seconds over that window (treecpu samples), plus podman containers' (libpod_parent cpuacct) where sampled
import re,glob,sys,os,bisect
root,cpuf=sys.argv[1],sys.argv[2]; podf=sys.argv[3] if len(sys.argv)>3 else None
cpu=[tuple(map(float,l.split()[:3])) for l in open(cpuf)]; ts=[c[0] for c in cpu]
pod=[]
if podf:
    for l in open(podf):
        a=l.split()
        if len(a)==2 and a[1]!='-': pod.append((float(a[0]),int(a[1])/1e9))
def at(t,series):
    if not series: return None
    i=min(bisect.bisect_left([x[0] for x in series],t),len(series)-1); return series[i]
ph={}
for f in glob.glob(root+'/**/target/*-reports*/TEST-*.xml',recursive=True):
    s=open(f).read(4000); m=re.search(r'<testsuite[^>]*',s)
    t=float(re.search(r'time="([^"]*)"',m.group(0)).group(1).replace(',',''))
    k=f.split('/target/')[0].split('/')[-1]+'/'+f.split('/target/')[1].split('/')[0]
    e=os.path.getmtime(f); p=ph.setdefault(k,[1e18,0,0]); p[0]=min(p[0],e-t); p[1]=max(p[1],e); p[2]+=t
for k,(s,e,cs) in sorted(ph.items(),key=lambda z:z[1][0]):
    a,b=at(s,cpu),at(e,cpu); pa,pb=at(s,pod),at(e,pod)
    podcpu=(pb[1]-pa[1]) if pa and pb else 0
    print('%-42s wall %6.1f classsec %6.1f treecpu %6.1f pod %5.1f load-end %s'%(k,e-s,cs,b[1]-a[1],podcpu,'%.1f'%0))
