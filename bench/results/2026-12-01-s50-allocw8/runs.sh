#!/usr/bin/env bash
# runs.sh RUN SHAPES JARS...: alloc.sh for each shape, the jars interleaved (A, B, A, B: ROUNDS rounds, default 2);
# each window's summary kept as alloc-RUN-SHAPE-JAR-HHMM.txt, the first three lines of each in alloc-RUN-sites.txt.
# Jars are /tmp/allocw8/jars/NAME.jar.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd); RUN=$1; SHAPES=$2; shift 2
for r in $(seq ${ROUNDS:-2}); do
  for s in $SHAPES; do
    for j in "$@"; do
      "$HERE/alloc.sh" /tmp/allocw8/jars/$j.jar $j $s > /dev/null 2>&1
      f=$HERE/alloc-$RUN-$s-$j-$(date -u +%H%M).txt
      cp /tmp/allocw8/out/$s-$j/summary.txt "$f"
      head -3 "$f" >> "$HERE/alloc-$RUN-sites.txt"
      [[ $r == ${ROUNDS:-2} ]] && cp /tmp/allocw8/out/$s-$j/alloc.collapsed.gz "$HERE/alloc-$RUN-$s-$j.collapsed.gz"
    done
  done
done
