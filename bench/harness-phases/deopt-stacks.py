#!/usr/bin/env python3
# The deoptimisations of a JFR recording grouped by site and stack (which path a storm's threads were on):
#   JFC=$PWD/bench/harness-phases/jit-stacks.jfc JFR=1 KEEP=/tmp/k ... bench/harness-phases/run.sh w9
#   jfr print --events jdk.Deoptimization --stack-depth 30 /tmp/k/launcher-1.jfr > deopt.txt
#   bench/harness-phases/deopt-stacks.py deopt.txt [frames shown, 14] [groups shown, 12]
# jit-stacks.jfc is jit.jfc with the deoptimisations' stack traces and every exception thrown (jdk.JavaExceptionThrow,
# with its stack: which exception ended the cancelled exchanges); both cost the proxy more than jit.jfc does.
import re,collections,sys
txt=open(sys.argv[1]).read()
evs=txt.split('jdk.Deoptimization {')[1:]
groups=collections.Counter()
def g(p,e):
    m=re.search(p,e); return m.group(1) if m else '?'
for e in evs:
    st=e.split('stackTrace = [')[1].split('\n  ]')[0] if 'stackTrace = [' in e else ''
    frames=[l.strip() for l in st.split('\n') if 'line:' in l]
    fr=tuple(re.sub(r'\(.*\)','',f.split(' line:')[0])+':'+f.split('line:')[1].split()[0] for f in frames[:int(sys.argv[2]) if len(sys.argv)>2 else 14])
    groups[(g(r'method = (\S+)',e), g(r'lineNumber = (\d+)',e), g(r'reason = "(.*)"',e))+fr]+=1
for k,v in groups.most_common(int(sys.argv[3]) if len(sys.argv)>3 else 12):
    print(v, k[:3])
    for f in k[3:]: print('     ',f)
