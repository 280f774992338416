import os, subprocess, time, sys, statistics
U="http://127.0.0.1:29611/health/ready"
base=["-Xmx16m","-XX:TieredStopAtLevel=1"]
V={
 "A-now":       ["jre-a/bin/java"]+base,
 "B-jlinkcds":  ["jre-b/bin/java"]+base,
 "C-probeaot":  ["jre-a/bin/java"]+base+["-XX:AOTCache=probe.aot","-Xlog:aot=off"],
 "D-serial":    ["jre-a/bin/java"]+base+["-XX:+UseSerialGC"],
 "E-aot+serial":["jre-a/bin/java"]+base+["-XX:+UseSerialGC","-XX:AOTCache=probe-serial.aot","-Xlog:aot=off"],
 "F-aotrefused":["jre-a/bin/java"]+base+["-XX:AOTCache=probe-refused.aot","-Xlog:aot=off"],
}
# run 1: python3 bench.py 20 A-now B-jlinkcds C-probeaot D-serial E-aot+serial
# run 2: python3 bench.py 20 A-now B-jlinkcds C-probeaot F-aotrefused
# jre-a: jlink as the Dockerfile; jre-b: the same with --generate-cds-archive; the caches: -XX:AOTCacheOutput=... on
# one probe run (C: of the 200 endpoint, E: with -XX:+UseSerialGC, F: of a closed port 29612)
V={k:V[k] for k in sys.argv[2:]}
n=int(sys.argv[1]); res={k:[] for k in V}
print("start", time.strftime("%H:%M:%S", time.gmtime()), "load", open("/proc/loadavg").read().split()[:3])
for r in range(n):
    order=list(V) if r%2==0 else list(V)[::-1]
    for k in order:
        t=time.perf_counter()
        p=subprocess.Popen(V[k]+["-cp","loomgate.jar","io.loomgate.cli.Probe",U],stdout=subprocess.DEVNULL,stderr=subprocess.PIPE)
        _,st,ru=os.wait4(p.pid,0)
        w=time.perf_counter()-t
        rc=os.waitstatus_to_exitcode(st)
        res[k].append((w,ru.ru_utime+ru.ru_stime,rc))
        print(r,k,"wall %.3f cpu %.3f rc %d"%(w,ru.ru_utime+ru.ru_stime,rc), flush=True)
print("end", time.strftime("%H:%M:%S", time.gmtime()), "load", open("/proc/loadavg").read().split()[:3])
for k,v in res.items():
    ws=[x[0] for x in v]; cs=[x[1] for x in v]
    print("%-13s n=%d wall median %.3f max %.3f  cpu median %.3f max %.3f  rc!=0: %d"%(k,len(v),statistics.median(ws),max(ws),statistics.median(cs),max(cs),sum(1 for x in v if x[2])))
