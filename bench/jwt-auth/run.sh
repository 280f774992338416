#!/usr/bin/env bash
# W2 (/hello, 256 connections) through a plain route, a JwtAuth route (ES256, verified tokens cached: the default)
# and a JwtAuth route with token-cache: 0 (a signature check per request), in one gateway, runs interleaved.
# Prints requests/s and the gateway's CPU µs per request for each. Usage: [WARM=10] bench/jwt-auth/run.sh [seconds] [rounds]
# The gateway is pinned to core 0, the origin and the load generator share core 1 (as ../shared/bench does).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SECS=${1:-8}
ROUNDS=${2:-3}
JAVA=${JAVA:-$(ls -d /usr/lib/jvm/*25*/bin/java 2>/dev/null | head -1)}
JAR=$HERE/loomgate-cli/target/loomgate.jar
WORK=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT
cd "$WORK"
"$JAVA" -cp "$JAR" "$HERE/bench/jwt-auth/JwtBenchToken.java"
cat > gw.yaml <<YAML
server: { address: 127.0.0.1, port: 18480 }
admin: { port: 0 }
access-log: { enabled: false }
routes:
  - { id: plain, uri: "http://127.0.0.1:18481", predicates: [ "Path=/hello" ] }
  - id: jwt
    uri: http://127.0.0.1:18481
    predicates: [ "Path=/jwt/**" ]
    filters:
      - StripPrefix=1
      - name: JwtAuth
        args: { jwks-file: $WORK/jwks.json, issuer: "https://idp.test", audiences: [api], required-scopes: [read],
                claims-to-headers: { sub: X-User-Id } }
  - id: verify
    uri: http://127.0.0.1:18481
    predicates: [ "Path=/verify/**" ]
    filters:
      - StripPrefix=1
      - name: JwtAuth
        args: { jwks-file: $WORK/jwks.json, issuer: "https://idp.test", audiences: [api], required-scopes: [read],
                claims-to-headers: { sub: X-User-Id }, token-cache: 0 }
YAML
taskset -c 1 "$JAVA" -jar "$JAR" backend --port 18481 > backend.log 2>&1 &
taskset -c 0 "$JAVA" -jar "$JAR" serve --config gw.yaml > gw.log 2>&1 &
GW=$!
for _ in $(seq 100); do curl -s -o /dev/null http://127.0.0.1:18480/hello && break; sleep 0.2; done
TOKEN=$(cat token.txt)
cpu() { awk '{print $14 + $15}' "/proc/$GW/stat"; } # utime + stime, clock ticks
TICK=$(getconf CLK_TCK)
run() { # name path: a 2 s warm-up, then the measured run with the gateway's CPU time around it
    local before after out
    taskset -c 1 "$JAVA" -jar "$JAR" load "http://127.0.0.1:18480$2" -c 256 -d 2s \
        -H "Authorization: Bearer $TOKEN" > /dev/null
    before=$(cpu)
    out=$(taskset -c 1 "$JAVA" -jar "$JAR" load "http://127.0.0.1:18480$2" -c 256 -d "${SECS}s" \
        -H "Authorization: Bearer $TOKEN" --json)
    after=$(cpu)
    python3 -c '
import json, sys
r = json.loads(sys.argv[2]); ticks, hz = int(sys.argv[3]), int(sys.argv[4])
ok = r["requests"]; err = sum(r["errors"].values())
print("%-16s %9.0f req/s  p99 %7.1f ms  errors %d  gateway CPU %6.1f us/req"
      % (sys.argv[1], r["requestsPerSecond"], r["latencyMs"]["p99"], err, ticks / hz * 1e6 / max(ok, 1)))
' "$1" "$out" "$((after - before))" "$TICK"
}
for path in /hello /jwt/hello /verify/hello; do # JIT warm-up of all three paths before anything is measured
    taskset -c 1 "$JAVA" -jar "$JAR" load "http://127.0.0.1:18480$path" -c 256 -d "${WARM:-10}s" \
        -H "Authorization: Bearer $TOKEN" > /dev/null
done
for r in $(seq "$ROUNDS"); do
    run plain /hello
    run jwt-cached /jwt/hello
    run jwt-verify-each /verify/hello
done
