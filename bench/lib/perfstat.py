"""Parsing shared by the bench scripts that read `perf stat --per-thread -x,` output and jcmd's thread names
(bench/epollwake/summarize.py, bench/w8split/split.py)."""
import re


def thread_names(path):
    """{tid: name} from a file of "nid name" lines (jcmd Thread.print's nid, hex or decimal)."""
    names = {}
    for line in open(path):
        nid, _, name = line.strip().partition(" ")
        names[int(nid, 16) if nid.startswith("0x") else int(nid)] = name
    return names


def per_thread_counts(lines):
    """(comm, tid, value, event) for each counted line of `perf stat --per-thread -x,`; uncounted lines skipped."""
    for line in lines:
        f = line.strip().split(",")
        if len(f) < 4 or not re.match(r".*-\d+$", f[0]):
            continue
        comm, tid = f[0].rsplit("-", 1)
        try:
            value = int(f[1])
        except ValueError:
            continue
        yield comm, int(tid), value, f[3]
