#!/usr/bin/env bash
# alternated: ab.sh ROUNDS jarA jarB ...: prints per round wall/cpu for each
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java; F="-Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -XX:+ExitOnOutOfMemoryError"
R=$1; shift
echo "# $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r=1;r<=R;r++)); do line="round $r:"; for jar in "$@"; do line+=" $jar $(/tmp/lgs37/ttfr_cpu.py 24391 /hello -- $J $F ${EXTRA:-} -jar $jar serve --config /tmp/lgs37/gw.yaml --no-watch)"; done; echo "$line"; done
echo "# $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
