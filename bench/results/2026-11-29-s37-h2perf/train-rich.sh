#!/usr/bin/env bash
# A cache trained by hand with h2load traffic (HTTP/1.1 over TLS and h2 over TLS at W9's concurrency), launcher flags.
set -u
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
OUT=${OUT:-/tmp/h2perf-s37/h2rich.aot}
export BENCH_TLS_CERT=/tmp/loomgate-bench/tls/cert.pem BENCH_TLS_KEY=/tmp/loomgate-bench/tls/key.pem
rm -f $OUT
/tmp/loomgate-bench/bin/backend -addr 127.0.0.1:28180 -latency 100ms > /dev/null 2>&1 & B=$!
$J -XX:+ExitOnOutOfMemoryError -Xmx256m -Xms16m -XX:+UseSerialGC -XX:ReservedCodeCacheSize=64m -XX:MaxMetaspaceSize=128m \
  -XX:FlightRecorderOptions=memorysize=2m -XX:+UseCompactObjectHeaders -XX:AOTCacheOutput=$OUT \
  -jar /work/wt/h2perf/loomgate-cli/target/loomgate-gateway.jar serve --config /tmp/harness-phases/gateway.yaml --no-watch > /tmp/h2perf-s37/train.log 2>&1 & P=$!
for _ in $(seq 300); do curl -sk -o /dev/null https://127.0.0.1:28181/hello && break; sleep 0.2; done
t0=$SECONDS
h2load --h1 -c64 -n${H1:-40000} https://127.0.0.1:28181/hello | grep -E "^requests|finished"
h2load -c50 -m10 -n${H2A:-40000} https://127.0.0.1:28181/hello | grep -E "^requests|finished"
h2load -c200 -m10 -n${H2B:-30000} https://127.0.0.1:28181/api/data | grep -E "^requests|finished"
echo "traffic $((SECONDS - t0)) s"
kill $P; wait $P; echo "gateway exit $?, cache $(stat -c %s $OUT 2>/dev/null) bytes after $((SECONDS - t0)) s"
kill $B
