# the classes of one reports folder as intervals (start = mtime - time), sorted by start; greedy lane assignment
import re,glob,sys,os
d=sys.argv[1]; rows=[]
for f in glob.glob(d+'/TEST-*.xml'):
    s=open(f).read(4000); m=re.search(r'<testsuite[^>]*',s)
    t=float(re.search(r'time="([^"]*)"',m.group(0)).group(1).replace(',',''))
    e=os.path.getmtime(f); rows.append((e-t,e,t,os.path.basename(f)[5:-4].split('.')[-1]))
rows.sort(); t0=rows[0][0]
lanes=[]
for s,e,t,n in rows:
    best=None
    for i,l in enumerate(lanes):
        if l[-1][1]<=s+0.6 and (best is None or l[-1][1]>lanes[best][-1][1]): best=i
    if best is None: lanes.append([(s,e,t,n)])
    else: lanes[best].append((s,e,t,n))
for i,l in enumerate(lanes):
    busy=sum(x[2] for x in l)
    print('lane %d: %d classes, %.1f s busy, ends %.1f; last: %s'%(i,len(l),busy,l[-1][1]-t0,', '.join('%s %.1f@%.1f'%(x[3],x[2],x[0]-t0) for x in l[-4:])))
