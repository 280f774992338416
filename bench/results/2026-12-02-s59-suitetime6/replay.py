# Replays a failsafe pass from one run's report times: N forks, each takes the next class (in the pass's order)
# when it is free. Usage: replay.py REPORTS_DIR N [reverse] [Class=seconds ...]
import re,glob,heapq,sys
d,n=sys.argv[1],int(sys.argv[2]); rev='reverse' in sys.argv[3:]
over=dict(a.split('=') for a in sys.argv[3:] if '=' in a)
rows=[]
for f in glob.glob(d+'/TEST-*.xml'):
    s=open(f).read(3000); t=float(re.search(r'<testsuite[^>]*time="([^"]*)"',s).group(1).replace(',',''))
    name=f.split('TEST-')[1][:-4]; short=name.split('.')[-1]
    rows.append((name,float(over.get(short,t))))
rows.sort(reverse=rev)
h=[0.0]*n
for name,t in rows:
    s=heapq.heappop(h); heapq.heappush(h,s+t)
print('%d forks: the pass ends at %.1f s'%(n,max(h)))
