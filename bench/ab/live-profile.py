#!/usr/bin/env python3
"""Two sides of a bench/ab/live.sh run (AP= set), compared by CPU µs per request per frame, summed over the rounds.

    bench/ab/live-profile.py OUT A B [self|gw|incl] [TOP]

self: the leaf frame (kernel frames end in _[k]); gw (default): the innermost io/loomgate frame of each stack, the
JDK's and the kernel's work charged to the gateway code that called it; incl: every frame, inclusive. The samples
are async-profiler's cpu ones at 1 ms, so a frame's µs per request is its samples * 1000 / requests. The first line
also splits each side's total into kernel and user time.
"""
import collections
import glob
import re
import sys


def load(out, side, mode):
    frames, requests, kernel = collections.Counter(), 0, 0
    for f in sorted(glob.glob(f'{out}/{side}.r*.cpu.collapsed')):
        requests += int(re.search(r'(\d+) requests in', open(f.replace('.cpu.collapsed', '.wrk')).read()).group(1))
        for line in open(f):
            stack, n = line.rstrip().rsplit(' ', 1)
            n, fr = int(n), stack.split(';')
            kernel += n if fr[-1].endswith('_[k]') else 0
            if mode == 'self':
                frames[fr[-1]] += n
            elif mode == 'gw':
                ours = [x for x in fr if x.startswith('io/loomgate')]
                frames[ours[-1] if ours else '(no gateway frame) ' + fr[-1]] += n
            else:
                for x in set(fr):
                    frames[x] += n
            frames['TOTAL'] += n
    return frames, requests, kernel


def main():
    out, a, b = sys.argv[1:4]
    mode = sys.argv[4] if len(sys.argv) > 4 else 'gw'
    top = int(sys.argv[5]) if len(sys.argv) > 5 else 40
    (fa, ra, ka), (fb, rb, kb) = load(out, a, mode), load(out, b, mode)
    for side, f, r, k in ((a, fa, ra, ka), (b, fb, rb, kb)):
        print(f'{side}: {r} requests, {f["TOTAL"] * 1000 / r:.1f} us/req sampled '
              f'(kernel {k * 1000 / r:.1f}, user {(f["TOTAL"] - k) * 1000 / r:.1f})')
    print(f'{a:>8} {b:>8}  {b}-{a}  ({mode})')
    for key in sorted(set(fa) | set(fb), key=lambda k: -(fa[k] / ra + fb[k] / rb))[:top]:
        x, y = fa[key] * 1000 / ra, fb[key] * 1000 / rb
        print(f'{x:8.2f} {y:8.2f} {y - x:+7.2f}  {key[:140]}')


if __name__ == '__main__':
    main()
