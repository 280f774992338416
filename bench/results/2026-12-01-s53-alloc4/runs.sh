#!/usr/bin/env bash
# runs.sh RUN SHAPES JARS...: alloc.sh for each shape, the jars interleaved (A, B, A, B: ROUNDS rounds, default 2);
# each window's summary kept as alloc-RUN-SHAPE-JAR-HHMM.txt, the first three lines of each in alloc-RUN-sites.txt,
# sites53.py's line for each in alloc-RUN-sites53.txt (session 53; 52 wrote sites52.py).
# Jars are /tmp/alloc4/jars/NAME.jar.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd); RUN=$1; SHAPES=$2; shift 2
for r in $(seq ${ROUNDS:-2}); do
  for s in $SHAPES; do
    for j in "$@"; do
      "$HERE/alloc.sh" /tmp/alloc4/jars/$j.jar $j $s > /dev/null 2>&1
      f=$HERE/alloc-$RUN-$s-$j-$(date -u +%H%M).txt
      cp /tmp/alloc4/out/$s-$j/summary.txt "$f"
      head -3 "$f" >> "$HERE/alloc-$RUN-sites.txt"
      # session 53: this branch's sites in every window (sites53.py), its request count from the summary's third line
      n=$(awk 'NR == 3 && /per request/ { printf "%.0f", $2 / $5 }' "$f")
      echo "$(head -1 "$f" | cut -d' ' -f1-3) profiled $n requests: $(python3 "$HERE/sites53.py" /tmp/alloc4/out/$s-$j/alloc.collapsed "$n")" >> "$HERE/alloc-$RUN-sites53.txt"
      [[ $r == ${ROUNDS:-2} ]] && cp /tmp/alloc4/out/$s-$j/alloc.collapsed.gz "$HERE/alloc-$RUN-$s-$j.collapsed.gz"
    done
  done
done
