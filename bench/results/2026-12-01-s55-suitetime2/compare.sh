#!/bin/bash
# compare.sh: the final run's per-pass spans beside run 63's
R=/work/wt/suitetime2/bench/results
T0=$(date -d "2026-12-01 $(awk '/^start/{print $2}' /tmp/st2/final.out) UTC" +%s)
python3 $R/2026-11-30-s48-citime/timeline.py /tmp/st2-clone $T0 -v > $R/2026-12-01-s55-suitetime2/final-timeline.txt
python3 $R/2026-11-30-s48-citime/forks.py $R/2026-12-01-s55-suitetime2/final-timeline.txt > $R/2026-12-01-s55-suitetime2/final-forks.txt
python3 - <<'PY'
R='/work/wt/suitetime2/bench/results/2026-12-01-s55-suitetime2/'
def passes(f):
    d={}
    for line in open(R+f):
        p=line.split()
        if len(p)==7 and ':' in p[0]: d[p[0]]=(float(p[1]),float(p[2]),float(p[3]),float(p[4]),int(p[5]),int(p[6]))
    return d
a=passes('ci63-timeline.txt'); b=passes('final-timeline.txt')
print(f"{'pass':45s} {'63 span':>8s} {'final span':>10s} {'63 class-s':>10s} {'final class-s':>13s} {'63 runs':>7s} {'final runs':>10s}")
ta=tb=0
for k in sorted(set(a)|set(b), key=lambda k: a.get(k,b.get(k))[0]):
    x=a.get(k,(0,0,0,0,0,0)); y=b.get(k,(0,0,0,0,0,0)); ta+=x[5]; tb+=y[5]
    print(f"{k:45s} {x[2]:8.1f} {y[2]:10.1f} {x[3]:10.1f} {y[3]:13.1f} {x[5]:7d} {y[5]:10d}")
print(f"{'runs in all':45s} {ta:>52d} {tb:>10d}")
PY
