import sys,re,bisect
# per module of a timestamped reactor log: wall and the Maven tree's CPU seconds (treecpu samples)
lab=sys.argv[1]
cpu=[tuple(map(float,l.split()[:3])) for l in open('/tmp/st6/%s.cpu'%lab)]
ts=[c[0] for c in cpu]
def at(t):
    i=min(max(bisect.bisect_left(ts,t),0),len(cpu)-1); return cpu[i]
marks=[]
for l in open('/tmp/st6/%s.log'%lab,errors='replace'):
    m=re.match(r'(\S+) \[INFO\] Building (Loomgate.*?) 0\.1\.0',l)
    if m: marks.append((float(m.group(1)),m.group(2)))
end=cpu[-1][0]; marks.append((end,'end'))
for (t,n),(t2,_) in zip(marks,marks[1:]):
    a,b=at(t),at(t2)
    print('%-40s wall %6.1f  tree cpu %6.1f  machine busy %6.1f'%(n,t2-t,b[1]-a[1],b[2]-a[2]))
print('total wall %.1f tree cpu %.1f'%(end-marks[0][0],cpu[-1][1]-at(marks[0][0])[1]))
