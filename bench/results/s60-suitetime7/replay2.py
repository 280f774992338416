# Replays one pass from its reports: the classes in the order they started in that run (or alphabetical with 'alpha'),
# N forks, each taking the next class when free; times scaled by 'scale=' (e.g. idle/load). Usage:
# replay2.py REPORTS_DIR N [alpha] [scale=X] [Class=seconds ...]
import re,glob,heapq,sys,os
d,n=sys.argv[1],int(sys.argv[2]); args=sys.argv[3:]
scale=float(next((a[6:] for a in args if a.startswith('scale=')),1))
over=dict(a.split('=') for a in args if '=' in a and not a.startswith('scale='))
rows=[]
for f in glob.glob(d+'/TEST-*.xml'):
    s=open(f).read(4000); m=re.search(r'<testsuite[^>]*',s)
    t=float(re.search(r'time="([^"]*)"',m.group(0)).group(1).replace(',',''))
    name=os.path.basename(f)[5:-4]; short=name.split('.')[-1]
    rows.append((os.path.getmtime(f)-t if 'alpha' not in args else 0,name,float(over.get(short,t*scale))))
rows.sort()
h=[0.0]*n
for _,name,t in rows:
    s=heapq.heappop(h); heapq.heappush(h,s+t)
print('%s: %d forks: the pass ends at %.1f s (class-seconds %.1f)'%(d.split('/')[-1],n,max(h),sum(r[2] for r in rows)))
