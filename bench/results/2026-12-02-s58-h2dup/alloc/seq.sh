#!/usr/bin/env bash
# The allocation pairs of session 58's h2dup (journal 2026-12-02-s58-h2dup): main and this branch, alternated.
# Usage: seq.sh MAIN_JAR AFTER_JAR OUTDIR
set -u
MAIN=$1; AFTER=$2; OUT=$3
HERE=$(cd "$(dirname "$0")/../../../alloc" && pwd)
export ORIGIN_PORT=29980 PORT=29981 ADMIN_PORT=29991 NGHTTPD_PORT=29982 WORK=/tmp/h2dup-alloc
export AP=/tmp/loomgate-alloc/ap/linux-x64/libasyncProfiler.so
head -c 1024 /dev/urandom > /tmp/h2dup-1k.bin
run() { # label jar shape [data]
    if [[ -n ${4:-} ]]; then DATA=$4 "$HERE/run.sh" "$2" "$1" "$3"; else "$HERE/run.sh" "$2" "$1" "$3"; fi 2>&1 | tail -3
    echo "end $(date -u +%T) $(cut -d' ' -f1-3 /proc/loadavg)"
}
{
run main-post1k "$MAIN" w8h2 /tmp/h2dup-1k.bin
run after-post1k "$AFTER" w8h2 /tmp/h2dup-1k.bin
run after-post1k-2 "$AFTER" w8h2 /tmp/h2dup-1k.bin
run main-post1k-2 "$MAIN" w8h2 /tmp/h2dup-1k.bin
} > "$OUT" 2>&1
