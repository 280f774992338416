import sys, collections, re
# usage: cat.py file.collapsed requests interval_us
f=sys.argv[1]; req=int(sys.argv[2]); iv=float(sys.argv[3])
c=collections.Counter(); tot=0
def cat(fr):
    s=';'.join(fr)
    if 'C2Compiler' in s or 'C1Compiler' in s or 'CompileBroker' in s: return 'jit'
    if 'GCTaskThread' in s or 'VM_GC' in s or 'GenCollect' in s or 'SerialHeap' in s or 'DefNewGeneration' in s: return 'gc'
    for f_ in fr:
        m=re.match(r'__x64_sys_(\w+)_\[k\]',f_)
        if m: return 'sys:'+m.group(1)
        if f_.startswith('ksys_read') or f_.startswith('vfs_read'): return 'sys:read'
        if f_.startswith('ksys_write') or f_.startswith('vfs_write'): return 'sys:write'
    if any(x.endswith('_[k]') for x in fr): return 'kernel-other'
    last=fr[-1]
    if 'epoll' in s.lower() and ('EpollPoller' in s): return 'user:poller'
    if last.startswith('io/loomgate/server/Epoll') or last.startswith('io/loomgate/server/Libc') or 'jdk/internal/foreign' in last or 'LambdaForm' in last: return 'user:epoll/ffm'
    if last.startswith('java/util/concurrent/ForkJoin') or last.startswith('java/lang/VirtualThread') or 'Continuation' in last or last.startswith('jdk/internal/vm') or 'thaw' in last.lower() or 'freeze' in last.lower(): return 'user:sched/continuation'
    if last.startswith('io/loomgate/http2') : return 'user:http2'
    if last.startswith('io/loomgate'): return 'user:loomgate-other'
    if last.startswith('sun/nio') or last.startswith('java/net') or last.startswith('sun/net'): return 'user:jdk-net'
    if last.startswith('java/') or last.startswith('jdk/'): return 'user:jdk-other'
    return 'user:native/other'
for line in open(f):
    stack,_,n=line.rstrip().rpartition(' '); n=int(n); tot+=n
    c[cat(stack.split(';'))]+=n
print(f'{f}: {tot*iv/req:.1f} us/req sampled')
for k,v in sorted(c.items(), key=lambda kv:-kv[1]): print(f'  {k:28s} {v*iv/req:6.2f} us/req  {100*v/tot:5.1f}%')
