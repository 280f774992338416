#!/usr/bin/env python3
"""The JIT's census of one proxy run of bench/harness-phases/run.sh (JFR=1): per phase, the compilations by tier and
C2's seconds, the deoptimisations by reason and action, the largest compile queue, classes loaded and collections;
then over the whole run the C2 compilations that took longest and inlined most, and every method compiled at tier 4
more than once (a deoptimisation loop shows there: the same method made not entrant and recompiled again and again).

    jit-census.py RUN.jfr RUN.phases T0        # RUN.phases: "label t0 t1 requests" per line (epoch seconds)

Counts, not rates: they answer the same work at any load of the shared machine."""
import collections
import datetime
import json
import os
import re
import subprocess
import sys

EVENTS = ("jdk.Compilation,jdk.Deoptimization,jdk.CompilerQueueUtilization,jdk.CodeCacheStatistics,"
          "jdk.CodeCacheFull,jdk.ClassLoadingStatistics,jdk.GarbageCollection,jdk.CompilationFailure")


def epoch(iso):  # "2026-11-30T13:54:36.201632689Z" -> seconds, nanoseconds kept to microseconds
    m = re.match(r"(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$", iso)
    base = datetime.datetime.fromisoformat(m.group(1) + ("+00:00" if m.group(3) == "Z" else m.group(3)))
    return base.timestamp() + float("0." + (m.group(2) or "0"))


def seconds(iso_duration):  # "PT0.000056294S", "PT1M2.5S"
    m = re.match(r"PT(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?", iso_duration or "PT0S")
    h, mi, s = m.groups()
    return int(h or 0) * 3600 + int(mi or 0) * 60 + float(s or 0)


def name(method):
    t = method["type"]["name"].replace("/", ".")
    return f"{t}::{method['name']}"


def main():
    jfr, phases_file, t0 = sys.argv[1], sys.argv[2], float(sys.argv[3])
    java_home = os.environ.get("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64")
    out = subprocess.run([f"{java_home}/bin/jfr", "print", "--json", "--events", EVENTS, jfr],
                         check=True, capture_output=True, text=True).stdout
    events = json.loads(out)["recording"]["events"]
    phases = [("start", t0, None, 0)]
    with open(phases_file) as f:
        for line in f:
            label, a, b, n = line.split()
            phases.append((label, float(a), float(b), int(n)))
    # a phase owns the events from its start to the next phase's start (the pause between them included)
    bounds = [(p[0], p[1], phases[i + 1][1] if i + 1 < len(phases) else float("inf"), p[3]) for i, p in enumerate(phases)]

    def phase_of(t):
        for label, a, b, _ in bounds:
            if a <= t < b:
                return label
        return "start" if t < bounds[0][1] else bounds[-1][0]

    per = {label: collections.Counter() for label, *_ in bounds}
    deopt_reasons = {label: collections.Counter() for label, *_ in bounds}
    queue_peak = {label: collections.Counter() for label, *_ in bounds}
    loaded = {}
    c2 = []
    tier4 = collections.defaultdict(list)
    deopts_by_method = collections.defaultdict(collections.Counter)
    cache_last = {}
    sites = collections.Counter()
    compiled = {e["values"]["compileId"]: (name(e["values"]["method"]), e["values"]["compileLevel"])
                for e in events if e["type"] == "jdk.Compilation"}
    for e in events:
        v = e["values"]
        t = epoch(v["startTime"])
        ph = phase_of(t)
        kind = e["type"]
        if kind == "jdk.Compilation":
            lvl = v["compileLevel"]
            d = seconds(v["duration"])
            if lvl == 4:
                per[ph]["C2"] += 1
                per[ph]["C2_s"] += d
                if v["isOsr"]:
                    per[ph]["C2_osr"] += 1
                c2.append((d, v["codeSize"], v["inlinedBytes"], name(v["method"]), ph, v["isOsr"]))
                if not v["isOsr"]:
                    tier4[name(v["method"])].append(ph)
            else:
                per[ph]["C1"] += 1
                per[ph]["C1_s"] += d
            if not v["succeded"]:
                per[ph]["failed"] += 1
        elif kind == "jdk.CompilationFailure":
            per[ph]["failures"] += 1
        elif kind == "jdk.Deoptimization":
            per[ph]["deopt"] += 1
            deopt_reasons[ph][f"{v['reason']}/{v['action']}"] += 1
            deopts_by_method[name(v["method"])][f"{v['reason']}/{v['action']}@{v['compiler']}"] += 1
            owner = compiled.get(v["compileId"], ("?", 0))
            sites[(name(v["method"]), v["lineNumber"], v["bci"], v["instruction"], v["reason"], ph,
                   f"{owner[0]} (tier {owner[1]}, compile {v['compileId']})")] += 1
        elif kind == "jdk.CompilerQueueUtilization":
            q = queue_peak[ph]
            q[v["compiler"]] = max(q[v["compiler"]], v["peakQueueSize"])
        elif kind == "jdk.ClassLoadingStatistics":
            loaded[ph] = v["loadedClassCount"]
        elif kind == "jdk.GarbageCollection":
            per[ph]["gc"] += 1
            per[ph]["gc_s"] += seconds(v["duration"])
        elif kind == "jdk.CodeCacheStatistics":
            cache_last[v["codeBlobType"]] = (v["unallocatedCapacity"], v["methodCount"], v["fullCount"])
        elif kind == "jdk.CodeCacheFull":
            per[ph]["cache_full"] += 1

    print(f"JIT census of {os.path.basename(jfr)} (phase: from its start to the next's)")
    print(f"{'phase':<10} {'req':>7} {'C1':>5} {'C2':>5} {'C2 s':>6} {'osr':>4} {'deopt':>5} {'gc':>4} {'gc s':>5} "
          f"{'classes':>7} {'C1 q':>5} {'C2 q':>5}  deoptimisations (reason/action)")
    prev_loaded = None
    for label, _, _, n in bounds:
        c = per[label]
        cl = loaded.get(label)
        dcl = "" if cl is None else (str(cl) if prev_loaded is None else f"+{cl - prev_loaded}")
        if cl is not None:
            prev_loaded = cl
        q = queue_peak[label]
        reasons = " ".join(f"{k} {v}" for k, v in deopt_reasons[label].most_common(6))
        print(f"{label:<10} {n:>7} {c['C1']:>5} {c['C2']:>5} {c['C2_s']:>6.2f} {c['C2_osr']:>4} {c['deopt']:>5} "
              f"{c['gc']:>4} {c['gc_s']:>5.2f} {dcl:>7} {q.get('c1', 0):>5} {q.get('c2', 0):>5}  {reasons}")
    tot = collections.Counter()
    for c in per.values():
        tot.update(c)
    print(f"total: C1 {tot['C1']} ({tot['C1_s']:.2f} s), C2 {tot['C2']} ({tot['C2_s']:.2f} s, OSR {tot['C2_osr']}), "
          f"deoptimisations {tot['deopt']}, failed compilations {tot['failed'] + tot['failures']}, "
          f"code cache full {tot['cache_full']}")
    print("code cache at the end (free MB, methods): " + ", ".join(
        f"{k} {v[0] / 1e6:.1f} MB free, {v[1]} methods, full {v[2]}" for k, v in sorted(cache_last.items())))
    print("C2's longest compilations (s, code bytes, inlined bytes, phase):")
    for d, code, inl, m, ph, osr in sorted(c2, reverse=True)[:12]:
        print(f"  {d:6.3f} {code:>7} {inl:>7} {ph:<8} {m}{' (OSR)' if osr else ''}")
    print("C2's most inlined (bytes inlined):")
    for d, code, inl, m, ph, osr in sorted(c2, key=lambda x: -x[2])[:6]:
        print(f"  {inl:>7} {d:6.3f} s {code:>7} B {ph:<8} {m}")
    by_owner = collections.defaultdict(lambda: [0, 0.0, 0])
    for d, code, inl, m, ph, osr in c2:
        owner = next((o for o in ("io.loomgate.", "jdk.jfr.", "jdk.internal.vm.", "sun.nio.", "java.lang.", "java.util.",
                                  "io.micrometer.", "org.HdrHistogram.", "java.", "jdk.", "sun.") if m.startswith(o)),
                     "other")
        by_owner[owner][0] += 1
        by_owner[owner][1] += d
        by_owner[owner][2] += code
    print("C2 by package (compilations, seconds, code KB): " + ", ".join(
        f"{o}* {v[0]} {v[1]:.2f} s {v[2] // 1024} KB" for o, v in sorted(by_owner.items(), key=lambda x: -x[1][1])))
    again = {m: phs for m, phs in tier4.items() if len(phs) > 1}
    print(f"methods compiled at tier 4 more than once: {len(again)} of {len(tier4)}"
          + (f" ({sum(len(p) for p in again.values()) - len(again)} recompilations)" if again else ""))
    for m, phs in sorted(again.items(), key=lambda x: -len(x[1]))[:15]:
        why = ", ".join(f"{k} {v}" for k, v in deopts_by_method[m].most_common(3))
        print(f"  {len(phs)}x {m} [{' '.join(phs)}] deopts: {why or '-'}")
    print("deoptimisation sites (method:line bci instruction, reason, phase, in the compiled code of):")
    for (m, line, bci, ins, reason, ph, owner), k in sites.most_common(8):
        print(f"  {k:>4} {m}:{line} bci {bci} {ins}, {reason}, {ph}, in {owner}")
    print("most deoptimised methods:")
    for m, c in sorted(deopts_by_method.items(), key=lambda x: -sum(x[1].values()))[:10]:
        print(f"  {sum(c.values()):>3} {m}: " + ", ".join(f"{k} {v}" for k, v in c.most_common(3)))


if __name__ == "__main__":
    main()
