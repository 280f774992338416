#!/usr/bin/env python3
"""The harness's warm_s as a quiet machine would read it, from a COUNT=n run of bench/harness-phases/run.sh (plain).

On a quiet machine the proxy under the harness's warm-up is bound by its one core: a 5 s round is 5 s of its CPU.
A COUNT run measures each phase's process CPU for a fixed number of requests, which the machine's load changes
little (the proxy's threads, compiler included, share core 0 with whatever else runs there in about the same
proportion). So lay the phases end to end on a CPU clock, cut it into 5 s rounds (requests spread evenly within a
phase), and apply the harness's rule: stop at the first round from the second on whose requests/s is no more than
5% above the best before it. Prints per proxy and round the rounds' requests/s and the warm_s the rule gives.

    quiet-warm.py RUN.txt [ROUND_S]          # RUN.txt: run.sh's output (COUNT=40000 WARM_RUNS=11 or so)"""
import collections
import sys


def rounds(phases, length):
    """phases: [(requests, cpu_seconds)] -> requests/s per whole round of `length` CPU seconds."""
    out, t, done, acc = [], 0.0, 0, 0.0
    for n, cpu in phases:
        rate = n / cpu if cpu > 0 else 0
        left = cpu
        while left > 0:
            step = min(left, length - acc)
            done += rate * step
            acc += step
            left -= step
            if acc >= length - 1e-9:
                out.append(done / length)
                done, acc = 0, 0.0
    return out


def warm_s(rps, length):
    best = 0
    for k, r in enumerate(rps, 1):
        if k >= 2 and r * 100 <= best * 105:
            return k * length, True
        best = max(best, r)
    return len(rps) * length, False


def main():
    length = float(sys.argv[2]) if len(sys.argv) > 2 else 5.0
    runs = collections.OrderedDict()
    for line in open(sys.argv[1]):
        f = line.split()
        if len(f) >= 9 and f[2].startswith("warm-") and f[1].isdigit():
            n, us = int(f[4]), float(f[7])
            runs.setdefault((f[0], f[1]), []).append((n, n * us / 1e6))
    for (proxy, rd), phases in runs.items():
        rps = rounds(phases, length)
        s, decided = warm_s(rps, length)
        cpu = sum(c for _, c in phases)
        print(f"{proxy:<10} {rd:>2}  warm_s {'' if decided else '>'}{s:>4.0f}  rounds (req/s): "
              + " ".join(f"{r:,.0f}" for r in rps) + f"  ({sum(n for n, _ in phases):,} requests, {cpu:.1f} s CPU)")


if __name__ == "__main__":
    main()
