import os,sys,time
# samples, once a second: the CPU seconds (user+sys, own and reaped children) of every live process under pid,
# and the machine's busy CPU seconds (/proc/stat), for a window's CPU count of one process tree
root=int(sys.argv[1]); out=open(sys.argv[2],'w'); hz=os.sysconf('SC_CLK_TCK')
def kids():
    ch={}
    for p in os.listdir('/proc'):
        if not p.isdigit(): continue
        try:
            st=open('/proc/%s/stat'%p).read()
            r=st[st.rindex(')')+2:].split()
            ch.setdefault(int(r[1]),[]).append((int(p),sum(int(x) for x in r[11:15])))
        except Exception: pass
    return ch
def own(pid):
    st=open('/proc/%d/stat'%pid).read(); r=st[st.rindex(')')+2:].split(); return sum(int(x) for x in r[11:15])
while os.path.exists('/proc/%d'%root):
    ch=kids(); tot=0; n=0
    try: tot=own(root)
    except Exception: break
    stack=[root]
    while stack:
        p=stack.pop()
        for c,t in ch.get(p,[]): tot+=t; n+=1; stack.append(c)
    s=open('/proc/stat').readline().split()[1:]; busy=sum(int(x) for x in s[:8])-int(s[3])-int(s[4])
    out.write('%.1f %.2f %.2f %d %s\n'%(time.time(),tot/hz,busy/hz,n,open('/proc/loadavg').read().split()[0])); out.flush()
    time.sleep(1)
