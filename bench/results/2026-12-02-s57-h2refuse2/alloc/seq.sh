#!/usr/bin/env bash
# The allocation pairs of this session (journal 2026-12-02-s57-h2refuse2): main and this branch, one after the other.
# Usage: seq.sh MAIN_JAR AFTER_JAR OUTDIR
set -u
MAIN=$1; AFTER=$2; OUT=$3
HERE=$(cd "$(dirname "$0")/../../../alloc" && pwd)
export ORIGIN_PORT=29880 PORT=29881 ADMIN_PORT=29891 NGHTTPD_PORT=29882 WORK=/tmp/h2refuse2-alloc
export AP=/tmp/loomgate-alloc/ap/linux-x64/libasyncProfiler.so
head -c 1024 /dev/urandom > /tmp/h2refuse2-1k.bin
run() { # label jar shape [data]
    if [[ -n ${4:-} ]]; then DATA=$4 "$HERE/run.sh" "$2" "$1" "$3"; else "$HERE/run.sh" "$2" "$1" "$3"; fi 2>&1 | tail -3
    echo "end $(date -u +%T) $(cut -d' ' -f1-3 /proc/loadavg)"
}
{
run main-post1k "$MAIN" w8h2 /tmp/h2refuse2-1k.bin
run after-post1k "$AFTER" w8h2 /tmp/h2refuse2-1k.bin
run after-w8 "$AFTER" w8
run main-w8 "$MAIN" w8
run after-post1k-2 "$AFTER" w8h2 /tmp/h2refuse2-1k.bin
run main-post1k-2 "$MAIN" w8h2 /tmp/h2refuse2-1k.bin
} > "$OUT" 2>&1
