#!/usr/bin/env bash
# One batch of ITs on a transport: run-its.sh <transport> <tag> <IT,IT,...>
# Packages the jars (verify), runs the listed ITs through failsafe (two forks, as CI), copies their reports.
set -u
T=$1; TAG=$2; ITS=$3
cd "$(dirname "$0")/../../.."
OUT=bench/results/2026-11-30-s48-itepoll/$TAG
mkdir -p "$OUT"
{ date -u +%T; uptime; } > "$OUT/start.txt"
PROP=""; [ "$T" != none ] && PROP="-Dloomgate.test.transport=$T"
JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 nice -n 5 ./mvnw -B -o -Dmaven.repo.local=/tmp/m2-itepoll/repository \
  -pl loomgate-cli -am verify -Dtest=NoUnitTests -Dsurefire.failIfNoSpecifiedTests=false \
  -Dit.test="$ITS" $PROP > "$OUT/mvn.log" 2>&1
echo "exit $?" >> "$OUT/start.txt"
{ date -u +%T; uptime; } >> "$OUT/start.txt"
for c in ${ITS//,/ }; do cp loomgate-cli/target/failsafe-reports/*."$c".txt "$OUT/" 2>/dev/null; done # this batch's only
grep -E "Tests run:.*in io|FAIL|BUILD" "$OUT/mvn.log" > "$OUT/summary.txt"
