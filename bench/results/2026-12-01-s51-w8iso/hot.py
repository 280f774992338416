#!/usr/bin/env python3
"""Per recording of run-w8.sh (KEEP dir: <proxy>-<round>.jfr and .phases): bytes allocated per request once warm,
from the JFR heap summaries (SerialGC: what was allocated between two collections = the heap used before the second
minus after the first), over the collections inside pre-3s .. more-3, the requests between the first and last of them
counted by spreading each phase's requests evenly over its span; then C2's roots in the gateway's own code: tier-4
compilations of io.loomgate methods (count, code bytes of each method's last tier-4 version summed) and the largest,
with every compilation of the methods stop 50's stackchunk split.
    hot.py KEEPDIR [KEEPDIR...]"""
import collections, glob, json, os, re, subprocess, sys, datetime

JAVA = os.environ.get("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64") + "/bin/jfr"
WATCH = ("UpstreamForwarder::", "FilterChains$Link::proceed", "ProxyHandler::handle", "Http2ServerConnection::",
         "Http2ServerExchange::", "RouteTable::match")

def epoch(iso):
    m = re.match(r"(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$", iso)
    base = datetime.datetime.fromisoformat(m.group(1) + ("+00:00" if m.group(3) == "Z" else m.group(3)))
    return base.timestamp() + float("0." + (m.group(2) or "0"))

def name(mt):
    return mt["type"]["name"].replace("/", ".") + "::" + mt["name"]

def one(jfr, phases_file, out):
    ev = json.loads(subprocess.run([JAVA, "print", "--json", "--events",
                                    "jdk.GCHeapSummary,jdk.Compilation,jdk.Deoptimization", jfr],
                                   check=True, capture_output=True, text=True).stdout)["recording"]["events"]
    phases = [(l, float(a), float(b), int(n)) for l, a, b, n in (x.split() for x in open(phases_file))]
    warm = [p for p in phases if p[0] in ("pre-3s", "WINDOW") or p[0].startswith("more-")]
    lo, hi = warm[0][1], warm[-1][2]
    heap = collections.defaultdict(dict)
    for e in ev:
        if e["type"] == "jdk.GCHeapSummary":
            v = e["values"]
            heap[v["gcId"]]["b" if v["when"].startswith("Before") else "a"] = v["heapUsed"]
            heap[v["gcId"]]["t"] = epoch(v["startTime"])
    ids = sorted(i for i in heap if "a" in heap[i] and "b" in heap[i] and lo <= heap[i]["t"] <= hi)
    def reqs_until(t):
        return sum(n if t >= b else (n * (t - a) / (b - a) if t > a else 0) for _, a, b, n in phases)
    alloc = sum(heap[ids[k]]["b"] - heap[ids[k - 1]]["a"] for k in range(1, len(ids))) if len(ids) > 1 else 0
    req = reqs_until(heap[ids[-1]]["t"]) - reqs_until(heap[ids[0]]["t"]) if len(ids) > 1 else 0
    bpr = alloc / req if req else float("nan")
    # C2's compilations of the gateway's own methods
    c2 = [e["values"] for e in ev if e["type"] == "jdk.Compilation" and e["values"]["compileLevel"] == 4]
    ours = [v for v in c2 if name(v["method"]).startswith("io.loomgate")]
    last = {}
    for v in sorted(ours, key=lambda v: epoch(v["startTime"])):
        if v.get("succeded", v.get("succeeded", True)):
            last[name(v["method"]) + (" (OSR)" if v.get("isOsr") else "")] = v
    code = sum(v["codeSize"] for v in last.values())
    warm_c2 = [v for v in c2 if lo <= epoch(v["startTime"]) <= hi]
    deo = [e["values"] for e in ev if e["type"] == "jdk.Deoptimization"]
    deo_warm = [v for v in deo if lo <= epoch(v["startTime"]) <= hi]
    tag = os.path.basename(jfr)[:-4]
    out.append((tag, len(ids), req, bpr, len(c2), len(ours), code, len(warm_c2), len(deo), len(deo_warm), last))

def main():
    rows = []
    for d in sys.argv[1:]:
        for jfr in sorted(glob.glob(d + "/*.jfr")):
            one(jfr, jfr[:-4] + ".phases", rows)
    print("| run | GCs pre-3s..more-3 | requests between them | B/request | C2 all / io.loomgate | io.loomgate C2 code bytes (last versions) | C2 started pre-3s..more-3 | deopts all / pre-3s..more-3 |")
    print("|---|---|---|---|---|---|---|---|")
    for tag, g, req, bpr, c2n, ours, code, wc2, dn, dw, _ in rows:
        print(f"| {tag} | {g} | {req:.0f} | {bpr:,.0f} | {c2n} / {ours} | {code:,} | {wc2} | {dn} / {dw} |")
    print()
    for tag, *_, last in rows:
        print(f"{tag}: largest io.loomgate tier-4 (code bytes, inlined bytes) and the watched methods")
        big = sorted(last.items(), key=lambda kv: -kv[1]["codeSize"])
        shown = set()
        for k, v in big[:8]:
            print(f"   {v['codeSize']:7d} {v['inlinedBytes']:6d}  {k}"); shown.add(k)
        for k, v in big:
            if k not in shown and any(w in k for w in WATCH):
                print(f"   {v['codeSize']:7d} {v['inlinedBytes']:6d}  {k}")
main()
