#!/bin/sh
# compose.yaml's `load` service: the same load against the gateway on virtual threads (9001) and on 200 platform
# threads (9000), one after the other, then the two figures side by side. POSIX sh: runs on busybox.
set -eu
CONNECTIONS=${CONNECTIONS:-1000}
DURATION=${DURATION:-20s}
WARMUP=${WARMUP:-3s}
JAR=${JAR:-/loomgate-full.jar}
PATH_=${LOAD_PATH:-/api/data}

wait_ready() { # host: polls the gateway's admin /health/ready for up to 60 s
    i=0
    until java -Xmx16m -XX:TieredStopAtLevel=1 -cp "$JAR" io.loomgate.cli.Probe "http://$1:9977/health/ready" \
        >/dev/null 2>&1; do
        i=$((i + 1)); [ "$i" -lt 60 ] || { echo "compare: $1 never became ready" >&2; exit 1; }
        sleep 1
    done
}

field() { # json key: the number after "key": (first occurrence)
    printf '%s' "$1" | sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p" | head -1
}

run() { # name url
    echo "loading $1 ($2): $CONNECTIONS connections for $DURATION" >&2
    java -jar "$JAR" load "$2" -c "$CONNECTIONS" -d "$DURATION" --warmup "$WARMUP" --progress never --json
}

wait_ready gateway-virtual
wait_ready gateway-platform
virtual=$(run "virtual" "http://gateway-virtual:9001$PATH_")
platform=$(run "platform:200" "http://gateway-platform:9000$PATH_")

printf '\n%-14s %12s %10s %10s %10s\n' model requests/s p50_ms p99_ms errors
for name in virtual platform:200; do
    if [ "$name" = virtual ]; then r=$virtual; else r=$platform; fi
    errors=$(( $(field "$r" connect) + $(field "$r" timeout) + $(field "$r" reset) + $(field "$r" status) ))
    printf '%-14s %12s %10s %10s %10s\n' "$name" "$(field "$r" requestsPerSecond)" "$(field "$r" p50)" \
        "$(field "$r" p99)" "$errors"
done
