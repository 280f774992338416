#!/usr/bin/env python3
"""C2's census from recordings made with jit-inline.jfc (harness-phases' jit.jfc plus jdk.CompilerInlining): per
recording, C2's compilations by compile time and code size, the top roots' share of C2's compile time, the roots
compiled more than once, and which of the gateway's methods are inlined into several large roots (their subtree's
bytecode parsed again in each). The inlining tree of each compilation is rebuilt from the events' order (C2 posts
a decision before it parses the callee: pre-order) and their caller field (a stack popped until its top is the
caller); late inlining (string concatenation, method handles) can misplace a few nodes, which does not change the
totals much. Bytecode sizes come from the gateway jar's class files and, with --jdk, the JDK's (else JDK methods count 0).

    c2trees.py GATEWAY_JAR RUN.jfr [RUN.jfr ...] [--jdk DIR] [--phase-from LABEL --phase-to LABEL] (phases: RUN.phases)
    TREES=n DEPTH=d MIN_SUB=bytes: how many of the longest roots' trees to print, how deep, which nodes
"""
import collections
import datetime
import json
import os
import re
import struct
import subprocess
import sys
import zipfile

JFR = os.environ.get("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64") + "/bin/jfr"
BIG = 10_000  # a "large root": at least this many bytes of C2 code
TREES, DEPTH, MIN_SUB = int(os.environ.get("TREES", 6)), int(os.environ.get("DEPTH", 4)), int(os.environ.get("MIN_SUB", 400))


def code_sizes(jar, jdk_dir=None):
    """(class/name, descriptor) -> bytecode length, from the jar's io/loomgate classes and, when given, a directory
    of the JDK's modules extracted by `jimage extract` (java.base, jdk.jfr)."""
    sizes = {}
    with zipfile.ZipFile(jar) as z:
        for n in z.namelist():
            if n.startswith("io/loomgate/") and n.endswith(".class"):
                parse(n[:-6], z.read(n), sizes)
    if jdk_dir:
        for mod in os.listdir(jdk_dir):
            top = os.path.join(jdk_dir, mod)
            for d, _, files in os.walk(top):
                for f in files:
                    if f.endswith(".class") and f != "module-info.class":
                        path = os.path.join(d, f)
                        parse(os.path.relpath(path, top)[:-6], open(path, "rb").read(), sizes)
    return sizes


def parse(cls, b, sizes):
    p = 10
    count = struct.unpack(">H", b[8:10])[0]
    utf8 = {}
    i = 1
    while i < count:
        tag = b[p]
        p += 1
        if tag == 1:
            ln = struct.unpack(">H", b[p:p + 2])[0]
            utf8[i] = b[p + 2:p + 2 + ln].decode("utf-8", "replace")
            p += 2 + ln
        elif tag in (7, 8, 16, 19, 20):
            p += 2
        elif tag == 15:
            p += 3
        elif tag in (3, 4, 9, 10, 11, 12, 17, 18):
            p += 4
        elif tag in (5, 6):
            p += 8
            i += 1
        i += 1
    p += 6
    ni = struct.unpack(">H", b[p:p + 2])[0]
    p += 2 + 2 * ni

    def skip_attrs(p):
        na = struct.unpack(">H", b[p:p + 2])[0]
        p += 2
        for _ in range(na):
            ln = struct.unpack(">I", b[p + 2:p + 6])[0]
            p += 6 + ln
        return p
    nf = struct.unpack(">H", b[p:p + 2])[0]
    p += 2
    for _ in range(nf):
        p = skip_attrs(p + 6)
    nm = struct.unpack(">H", b[p:p + 2])[0]
    p += 2
    for _ in range(nm):
        name = utf8[struct.unpack(">H", b[p + 2:p + 4])[0]]
        desc = utf8[struct.unpack(">H", b[p + 4:p + 6])[0]]
        na = struct.unpack(">H", b[p + 6:p + 8])[0]
        p += 8
        for _ in range(na):
            an = utf8[struct.unpack(">H", b[p:p + 2])[0]]
            ln = struct.unpack(">I", b[p + 2:p + 6])[0]
            if an == "Code":
                sizes[(cls, name, desc)] = struct.unpack(">I", b[p + 10:p + 14])[0]
            p += 6 + ln


def epoch(iso):
    m = re.match(r"(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$", iso)
    base = datetime.datetime.fromisoformat(m.group(1) + ("+00:00" if m.group(3) == "Z" else m.group(3)))
    return base.timestamp() + float("0." + (m.group(2) or "0"))


def seconds(d):
    m = re.match(r"PT(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?", d or "PT0S")
    h, mi, s = m.groups()
    return int(h or 0) * 3600 + int(mi or 0) * 60 + float(s or 0)


def key_of(m, caller):
    if caller:
        return (m["type"]["name"], m["name"], m["descriptor"])
    return (m["type"], m["name"], m["descriptor"])


def short(k):
    return k[0].split("/")[-1] + "::" + k[1]


def analyse(jfr, sizes, span):
    ev = json.loads(subprocess.run([JFR, "print", "--json", "--events", "jdk.Compilation,jdk.CompilerInlining", jfr],
                                   check=True, capture_output=True, text=True).stdout)["recording"]["events"]
    comps = {}
    inl = collections.defaultdict(list)
    for e in ev:
        v = e["values"]
        if e["type"] == "jdk.Compilation":
            if span and not (span[0] <= epoch(v["startTime"]) < span[1]):
                continue
            comps[v["compileId"]] = v
        else:
            inl[v["compileId"]].append(v)
    c2 = {i: v for i, v in comps.items() if v["compileLevel"] == 4}
    total_s = sum(seconds(v["duration"]) for v in c2.values())
    print(f"## {os.path.basename(jfr)}: {len(c2)} C2 compilations, {total_s:.2f} s of C2 compile time (wall), "
          f"{sum(v['codeSize'] for v in c2.values()) / 1024:.0f} KB of code")
    roots = sorted(c2.values(), key=lambda v: -seconds(v["duration"]))
    top = roots[:10]
    print(f"   the 10 longest: {sum(seconds(v['duration']) for v in top):.2f} s "
          f"({100 * sum(seconds(v['duration']) for v in top) / total_s:.0f}%); "
          f">= {BIG // 1000} KB of code: {sum(1 for v in c2.values() if v['codeSize'] >= BIG)} compilations, "
          f"{sum(seconds(v['duration']) for v in c2.values() if v['codeSize'] >= BIG):.2f} s")
    per_method = collections.Counter(key_of(v["method"], True) for v in c2.values())
    print("   s       code B  inlined B  nodes  root (x = compiled at tier 4 this many times in the span)")
    for v in top:
        k = key_of(v["method"], True)
        print(f"   {seconds(v['duration']):5.3f} {v['codeSize']:8d} {v['inlinedBytes']:8d} {len(inl[v['compileId']]):6d}  "
              f"{short(k)}{' (OSR)' if v['isOsr'] else ''} x{per_method[k]}")
    # subtree sizes of the gateway's methods inside other roots
    where = collections.defaultdict(list)  # method -> [(root, subtree bytecode bytes, root code size)]
    trees = {}
    for cid, v in c2.items():
        root = key_of(v["method"], True)
        stack = [(root, [], 0)]  # (method, its descendants' keys, depth)
        nodes = []
        for d in inl[cid]:
            caller = key_of(d["caller"], True)
            while len(stack) > 1 and stack[-1][0] != caller:
                stack.pop()
            if not d["succeeded"]:
                continue
            callee = key_of(d["callee"], False)
            node = (callee, [], len(stack))
            for s in stack[1:]:
                s[1].append(callee)
            stack.append(node)
            nodes.append(node)
        trees[cid] = nodes
        seen = set()
        for callee, desc, _ in nodes:
            if not callee[0].startswith("io/loomgate/") or callee in seen:
                continue
            seen.add(callee)
            sub = sizes.get(callee, 0) + sum(sizes.get(c, 0) for c in desc)
            where[callee].append((root, sub, v["codeSize"]))
    rows = []
    for m, lst in where.items():
        big = [x for x in lst if x[2] >= BIG]
        if len(big) >= 2:
            rows.append((sum(x[1] for x in big), m, big))
    rows.sort(key=lambda r: -r[0])
    print("   why C2 stopped inlining in the 10 longest (failed decisions by message; 'size > DesiredMethodLimit' and "
          "'NodeCountInliningCutoff' mean the root's budget was full)")
    for v in top:
        msgs = collections.Counter(d["message"] for d in inl[v["compileId"]] if not d["succeeded"])
        print(f"   {short(key_of(v['method'], True))}: " + ", ".join(f"{m} {n}" for m, n in msgs.most_common(6)))
    for v in top[:TREES]:
        print(f"   tree of {short(key_of(v['method'], True))} (compile {v['compileId']}, {v['inlinedBytes']} B inlined): "
              f"nodes of depth <= {DEPTH} whose subtree holds >= {MIN_SUB} B of bytecode (own + below)")
        for callee, desc, depth in trees.get(v["compileId"], []):
            sub = sizes.get(callee, 0) + sum(sizes.get(c, 0) for c in desc)
            if depth <= DEPTH and sub >= MIN_SUB:
                print(f"   {'  ' * depth}{sub:6d} {sizes.get(callee, 0):5d}  {short(callee)}")
    print(f"   the gateway's methods inlined into 2+ roots of >= {BIG // 1000} KB (own bytecode; subtree bytecode (ours) "
          "summed over those roots; the roots)")
    for tot, m, big in rows[:25]:
        print(f"   {sizes.get(m, 0):5d} {tot:7d}  {short(m)}  <- " +
              ", ".join(f"{short(r)}({s})" for r, s, _ in sorted(big, key=lambda x: -x[1])[:6]))


def main():
    args = sys.argv[1:]
    span_labels = None
    if "--phase-from" in args:
        i = args.index("--phase-from")
        span_labels = (args[i + 1], args[args.index("--phase-to") + 1])
        args = args[:i] + args[i + 4:]
    jdk = None
    if "--jdk" in args:
        i = args.index("--jdk")
        jdk = args[i + 1]
        args = args[:i] + args[i + 2:]
    sizes = code_sizes(args[0], jdk)
    for jfr in args[1:]:
        span = None
        if span_labels:
            ph = {l: (float(a), float(b)) for l, a, b, _ in (x.split() for x in open(jfr[:-4] + ".phases"))}
            span = (0 if span_labels[0] == "start" else ph[span_labels[0]][0], ph[span_labels[1]][1])
        analyse(jfr, sizes, span)


main()
