#!/usr/bin/env python3
"""A markdown table of run.sh's snapshots (one file per phase): RSS and NMT's committed MB per category, one column
per file, and RSS less NMT's non-heap categories: the heap's resident pages plus native memory NMT does not track
(JNI: Conscrypt's BoringSSL; malloc's own slack).

    bench/memory/nmt-table.py OUT/launcher.start.txt OUT/launcher.idle.txt OUT/launcher.inflight-10000.txt ...

NMT's "committed" is what the JVM asked the OS for, not what it touched: the heap is committed whole at its start
size but only the touched pages are resident, so the heap's row is committed and RSS is the resident figure.
"""
import re
import sys

# NMT's categories, grouped as docs/performance.md ("Memory") and its journal's tables report them.
GROUPS = [
    ("heap", ["Java Heap"]),
    ("classes: AOT cache (mapped), metaspace, class", ["Shared class space", "Metaspace", "Class", "Module"]),
    ("code cache", ["Code"]),
    ("JIT compiler (arenas)", ["Compiler", "Arena Chunk"]),
    ("GC structures", ["GC", "GCCardSet"]),
    ("platform threads' stacks", ["Thread", "Thread Stack"]),
    ("JFR (Tracing)", ["Tracing"]),
    ("symbols, internal, other (NIO direct buffers)", ["Symbol", "Internal", "Other", "Synchronization",
                                                        "Object Monitors", "Serviceability", "Safepoint",
                                                        "String Deduplication", "Logging", "Arguments", "Statistics",
                                                        "Test", "Unknown", "Native Memory Tracking"]),
]


def parse(path):
    text = open(path, encoding="utf-8").read()
    rss = int(re.search(r"VmRSS (\d+) kB", text).group(1))
    cats = {m.group(1).strip(): int(m.group(2)) for m in
            re.finditer(r"^-\s+(.+?) \(reserved=\d+KB, committed=(\d+)KB", text, re.M)}
    total = re.search(r"^Total: reserved=\d+KB, committed=(\d+)KB", text, re.M)
    # In a container (run.sh container): the cgroup's charge, its anonymous part and the kernel's (sockets) when known.
    cgroup = re.search(r"cgroup (\d+) kB \(peak \d+ kB; anon (\d+) kB, file \d+ kB(?:, kernel (\d+) kB)?", text)
    return rss, cats, int(total.group(1)) if total else None, cgroup and tuple(int(g or 0) for g in cgroup.groups())


def main(files):
    cols = [(f.rsplit("/", 1)[-1].removesuffix(".txt"), *parse(f)) for f in files]
    mb = lambda kb: f"{kb / 1024:.1f}"
    print("| MB | " + " | ".join(c[0] for c in cols) + " |")
    print("|---|" + "---|" * len(cols))
    print("| **RSS** | " + " | ".join(f"**{mb(c[1])}**" for c in cols) + " |")
    if any(c[4] for c in cols):
        print("| the container's cgroup: charged (anonymous, kernel) | " + " | ".join(
            f"{mb(c[4][0])} ({mb(c[4][1])}, {mb(c[4][2]) if c[4][2] else '-'})" if c[4] else "-" for c in cols) + " |")
    for name, members in GROUPS:
        print(f"| {name} | " + " | ".join(mb(sum(c[2].get(m, 0) for m in members)) for c in cols) + " |")
    print("| NMT committed, total | " + " | ".join(mb(c[3]) if c[3] else "-" for c in cols) + " |")
    # Resident heap pages plus native memory NMT does not see (JNI: Conscrypt's BoringSSL; malloc's slack).
    print("| RSS - NMT's non-heap: heap touched + untracked native | " + " | ".join(
        mb(c[1] - (c[3] - c[2].get("Java Heap", 0))) if c[3] else "-" for c in cols) + " |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
