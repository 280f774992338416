#!/usr/bin/env bash
# stop 47: which part of the merge moved W2/W8: after with the 16 MiB young generation (a16), after as built (a32), before
Y16="-Xms32m -XX:NewSize=16m -XX:MaxNewSize=16m"
for r in 1 2; do
  echo "=== a16 $(date -u +%T)"; /tmp/w28.sh /tmp/s47after "$Y16"
  echo "=== a32 $(date -u +%T)"; /tmp/w28.sh /tmp/s47after
  echo "=== before $(date -u +%T)"; /tmp/w28.sh /tmp/s47before
done
