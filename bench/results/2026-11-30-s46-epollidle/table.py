import re,sys,glob
# prints one line per measured run: file, variant, time, req/s, CPU (user, kernel), calls per request, load
for f in sys.argv[1:]:
    cur=None
    for line in open(f):
        m=re.match(r'== (\S+) round \d+: (\S+)\s+(\S+)',line)
        if m: cur=[m.group(2),m.group(3)]; continue
        m=re.match(r'round \d+ \S+\s+(\d+) req/s\s+CPU\s+([\d.]+) us/req \(user\s+([\d.]+), kernel\s+([\d.]+)\).*load (\S+)',line)
        if m and cur: cur+= [m.group(1),m.group(2),m.group(3),m.group(4),m.group(5)]; continue
        if 'system calls per request' in line and cur:
            d=dict(re.findall(r'(\w+) ([\d.]+)',line.split(':',1)[1]))
            keep=['read','recvfrom','write','sendto','epoll_wait','epoll_ctl','futex','cs']
            calls=', '.join(f'{k} {d[k]}' for k in keep if k in d and float(d[k])>0)
            print(f"{f:12} {cur[0]:8} {cur[1]} {cur[2]:>6} req/s {cur[3]:>5} us ({cur[4]}, {cur[5]}) load {cur[6]:>6} | {calls}")
            cur=None
