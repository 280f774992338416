import re,glob,sys,os
root=sys.argv[1]
rows=[]
for f in glob.glob(root+'/**/target/*-reports*/TEST-*.xml',recursive=True):
    s=open(f).read(4000)
    m=re.search(r'<testsuite[^>]*',s)
    t=float(re.search(r'time="([^"]*)"',m.group(0)).group(1).replace(',',''))
    ex=f.split('/target/')[1].split('/')[0]
    mod=f.split('/target/')[0].split('/')[-1]
    end=os.path.getmtime(f)
    rows.append((mod,ex,os.path.basename(f)[5:-4].split('.')[-1],t,end-t,end))
t0=min(r[4] for r in rows)
ph={}
for r in rows:
    k=(r[0],r[1]); p=ph.setdefault(k,[1e18,0,0,0]); p[0]=min(p[0],r[4]); p[1]=max(p[1],r[5]); p[2]+=r[3]; p[3]+=1
for k,p in sorted(ph.items(),key=lambda z:z[1][0]):
    print('%-45s start %6.1f end %6.1f wall %6.1f classsec %7.1f n %d'%('/'.join(k),p[0]-t0,p[1]-t0,p[1]-p[0],p[2],p[3]))
if len(sys.argv)>2:
    for r in sorted(rows,key=lambda r:-r[3])[:int(sys.argv[2])]:
        print('%-70s %7.1f start %6.1f'%('/'.join(r[:3]),r[3],r[4]-t0))
