import re,sys
run=None; rows={}
order=[]
for l in open(sys.argv[1]):
    m=re.match(r'^cmd loomgate: /tmp/(\w+)/',l)
    if m:
        run=m.group(1); idx=sum(1 for o in order if o.startswith(run)); key=f"{run}#{idx+1}"; order.append(key); rows[key]={}
        continue
    if re.match(r'^W\d ',l) and run:
        c=re.split(r'\s{2,}',l.strip())
        wl,conns,proxy=c[0].split()[0], c[0].split()[1] if len(c[0].split())>1 else c[1], None
        parts=l.split()
        wl,conns,proxy=parts[0],parts[1],parts[2]
        rps=float(parts[3].replace(',',''))
        # CPU us/req column: find by position from header: take the value 3rd after RSS
        cols=re.split(r'\s{2,}',l.strip())
        cpu=float(cols[-5]) if False else None
        rows[key].setdefault((wl,conns),{})[proxy]=(rps,cols)
for key in order:
    for (wl,conns),d in rows[key].items():
        if 'loomgate' in d and 'haproxy-t1' in d:
            (r1,c1),(r2,c2)=d['loomgate'],d['haproxy-t1']
            # columns: ..., errors, rss, cpu%, cpu us/req, wrk, origin, bound, reps
            def cpu(c): 
                nums=[x for x in c if re.fullmatch(r'[0-9.]+',x)]
                return float(nums[-4])
            print(f"{key:12s} {wl} {conns:7s} rps {r1/r2:.2f}  cpu/req {cpu(c1)/cpu(c2):.2f}  ({cpu(c1)} vs {cpu(c2)})")
