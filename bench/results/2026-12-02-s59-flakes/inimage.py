# 20 alternated probe starts inside the running image (podman exec: wall includes exec's own cost), with and without
# the probe's AOT cache; exit codes counted.
import subprocess, sys, time, statistics
n = sys.argv[1]
j = ["podman", "exec", n, "/opt/loomgate/jre/bin/java", "-Xmx16m", "-XX:TieredStopAtLevel=1"]
tail = ["-cp", "/opt/loomgate/loomgate.jar", "io.loomgate.cli.Probe", "http://127.0.0.1:9977/health/ready"]
V = {"without": j + tail, "with-cache": j + ["-XX:AOTCache=/opt/loomgate/probe.aot", "-Xlog:aot=off"] + tail}
res = {k: [] for k in V}
print("start", time.strftime("%H:%M:%S", time.gmtime()), "load", open("/proc/loadavg").read().split()[:3])
for r in range(20):
    for k in (list(V) if r % 2 == 0 else list(V)[::-1]):
        t = time.perf_counter()
        rc = subprocess.run(V[k], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        res[k].append((time.perf_counter() - t, rc))
        print(r, k, "%.3f rc %d" % (res[k][-1][0], rc), flush=True)
print("end", time.strftime("%H:%M:%S", time.gmtime()), "load", open("/proc/loadavg").read().split()[:3])
for k, v in res.items():
    w = [x[0] for x in v]
    print("%-10s n=%d wall median %.3f min %.3f max %.3f rc!=0: %d" % (k, len(v), statistics.median(w), min(w), max(w),
                                                                      sum(1 for x in v if x[1])))
