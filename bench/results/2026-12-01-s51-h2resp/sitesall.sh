#!/usr/bin/env bash
# sitesall.sh RUN: sites51.py over each of the run's kept profiles (the last round's, per shape and jar), its request
# count taken from that window's summary ("total B, per request b": B / b).
HERE=$(cd "$(dirname "$0")" && pwd); cd "$HERE"
for f in alloc-$1-*.collapsed.gz; do
    key=${f#alloc-$1-}; key=${key%.collapsed.gz}
    summary=$(ls alloc-$1-$key-*.txt | tail -1)
    n=$(awk 'NR == 3 && /per request/ { printf "%.0f", $2 / $5 }' "$summary")
    echo "$key ($summary, $n requests): $(python3 sites51.py "$f" "$n")"
done
