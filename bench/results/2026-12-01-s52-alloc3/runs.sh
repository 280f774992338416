#!/usr/bin/env bash
# runs.sh RUN SHAPES JARS...: alloc.sh for each shape, the jars interleaved (A, B, A, B: ROUNDS rounds, default 2);
# each window's summary kept as alloc-RUN-SHAPE-JAR-HHMM.txt, the first three lines of each in alloc-RUN-sites.txt,
# sites52.py's line for each in alloc-RUN-sites52.txt (session 52).
# Jars are /tmp/alloc3/jars/NAME.jar.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd); RUN=$1; SHAPES=$2; shift 2
for r in $(seq ${ROUNDS:-2}); do
  for s in $SHAPES; do
    for j in "$@"; do
      "$HERE/alloc.sh" /tmp/alloc3/jars/$j.jar $j $s > /dev/null 2>&1
      f=$HERE/alloc-$RUN-$s-$j-$(date -u +%H%M).txt
      cp /tmp/alloc3/out/$s-$j/summary.txt "$f"
      head -3 "$f" >> "$HERE/alloc-$RUN-sites.txt"
      # session 52: this branch's sites in every window (sites52.py), its request count from the summary's third line
      n=$(awk 'NR == 3 && /per request/ { printf "%.0f", $2 / $5 }' "$f")
      echo "$(head -1 "$f" | cut -d' ' -f1-3) profiled $n requests: $(python3 "$HERE/sites52.py" /tmp/alloc3/out/$s-$j/alloc.collapsed "$n")" >> "$HERE/alloc-$RUN-sites52.txt"
      [[ $r == ${ROUNDS:-2} ]] && cp /tmp/alloc3/out/$s-$j/alloc.collapsed.gz "$HERE/alloc-$RUN-$s-$j.collapsed.gz"
    done
  done
done
