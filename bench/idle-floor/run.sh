#!/usr/bin/env bash
# The JDK's own floor for an idle connection's memory: bench/floor/IdleFloor.java holds N accepted channels
# registered with one selector, and with TLS JSSE's engine after a TLS 1.3 handshake (ALPN h2, an ECDSA P-256
# certificate, the suites set per engine as the gateway sets them), nothing else. Live heap per held connection by
# class from jcmd GC.class_histogram (a full GC first), before vs held and held vs released, without the serial
# collector's filler arrays: the same method and JVM flags as bench/h2idle, so the figures compare with the gateway's.
#
#   bench/idle-floor/run.sh tls        # N=5000 by default
#   N=2000 bench/idle-floor/run.sh plain
#   SUITES= bench/idle-floor/run.sh tls   # the context's default suites, nothing set per engine
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MODE=${1:-tls}
N=${N:-5000}
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
# The gateway's default order (AES-128-GCM first for each key exchange; bench/floor/EngineHandshake.java), set on
# each engine; empty for the context's defaults, or a comma list.
SUITES=${SUITES-gateway}
WORK=$(mktemp -d /tmp/idle-floor.XXXXXX)
ulimit -n "$(ulimit -Hn)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

"$JAVA_HOME/bin/javac" -d "$WORK" "$HERE"/../floor/*.java
args=(plain)
tls=()
if [[ $MODE == tls ]]; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=127.0.0.1 \
        -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2> /dev/null
    openssl pkcs12 -export -in "$WORK/cert.pem" -inkey "$WORK/key.pem" -out "$WORK/ks.p12" -passout pass:floor
    args=(tls "$WORK/ks.p12" floor ${SUITES:+"$SUITES"})
    tls=(--tls)
fi
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$JAVA_HOME/bin/java" -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -cp "$WORK" IdleFloor "$PORT" \
    "${args[@]}" > "$WORK/floor.log" 2>&1 &
FLOOR=$!
pids+=("$FLOOR")
deadline=$((SECONDS + 60))
until grep -q listening "$WORK/floor.log"; do
    ((SECONDS < deadline)) || { echo "IdleFloor did not start: $(cat "$WORK/floor.log")" >&2; exit 1; }
    sleep 0.2
done
histogram() { "$JAVA_HOME/bin/jcmd" "$FLOOR" GC.class_histogram > "$WORK/$1.txt"; }

python3 "$HERE/hold.py" "$PORT" -n 200 "${tls[@]}" <<< "" > /dev/null # warm-up: the classes a connection loads
histogram before
coproc HOLD { python3 "$HERE/hold.py" "$PORT" -n "$N" "${tls[@]}"; }
pids+=("$HOLD_PID")
read -r ready <&"${HOLD[0]}"
echo "$ready"
histogram held
echo >&"${HOLD[1]}"
read -r alive <&"${HOLD[0]}"
echo "$alive"
deadline=$((SECONDS + 30)) # the selector closes what the client closed; wait until the connections are gone
while [[ $(ls /proc/"$FLOOR"/fd | wc -l) -gt 100 ]]; do
    ((SECONDS < deadline)) || { echo "connections still open 30 s after the client closed them" >&2; exit 1; }
    sleep 0.2
done
histogram released
python3 - "$WORK" "$N" <<'PY'
import sys
work, n = sys.argv[1], int(sys.argv[2])
def read(name):
    classes = {}
    for line in open(f"{work}/{name}.txt"):
        parts = line.split()
        if len(parts) >= 4 and parts[0].endswith(":") and parts[0][:-1].isdigit():
            if "FillerElement" not in parts[3]:  # the serial collector's dead space, not objects
                classes[parts[3]] = int(parts[2])
    return classes
before, held, released = read("before"), read("held"), read("released")
total = lambda c: sum(c.values())
print(f"HEAP per_connection_bytes before_vs_held={(total(held) - total(before)) / n:.0f} "
      f"held_vs_released={(total(held) - total(released)) / n:.0f}")
growth = sorted(((held.get(k, 0) - released.get(k, 0)) / n, k) for k in held)
for b, k in reversed(growth):
    if b >= 4:
        print(f"HEAP class={k} per_connection_bytes={b:.1f}")
PY
