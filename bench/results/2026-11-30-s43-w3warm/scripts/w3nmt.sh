#!/usr/bin/env bash
# follows a harness run's log ($1) and W3 holdconns file ($2): NMT baseline before W3, diffs while held, histogram
log=$1 hold=$2 out=$3 J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd
end=$((SECONDS + 300))
until grep -q 'W3 10000 idle' "$log" 2>/dev/null || ((SECONDS > end)); do sleep 0.2; done
pid=$(pgrep -f 'loomgate-gateway.jar serve' | head -1)
sleep 4.3
{ date +%T.%N; $J $pid VM.native_memory baseline; } > $out.baseline.txt 2>&1
until grep -q '^READY' "$hold" 2>/dev/null || ((SECONDS > end)); do sleep 0.1; done
date +%T.%N > $out.ready.txt
sleep 1.5
{ date +%T.%N; grep -E '^(Rss|Anonymous)' /proc/$pid/smaps_rollup; $J $pid VM.native_memory summary.diff; } > $out.held1.txt 2>&1
sleep 4.5
{ date +%T.%N; grep -E '^(Rss|Anonymous)' /proc/$pid/smaps_rollup; $J $pid VM.native_memory summary.diff; } > $out.held2.txt 2>&1
{ date +%T.%N; $J $pid GC.class_histogram | head -40; } > $out.histo.txt 2>&1
