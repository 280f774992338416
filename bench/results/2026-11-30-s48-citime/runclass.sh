#!/usr/bin/env bash
# usage: runclass.sh <label> <TestClass> [extra -D args...]; appends one line to $OUT/runs.txt
set -u
label=$1; cls=$2; shift 2
OUT=/work/wt/citime/bench/results/2026-11-30-s48-citime
cd ${WT:-/work/wt/citime}
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
start=$(date -u +%H:%M:%S); l0=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$(date +%s)
nice -n 5 ./mvnw -B -q -o -Dmaven.repo.local=/tmp/m2-citime/repository -pl loomgate-cli -am test -Dtest=$cls \
  -Dsurefire.failIfNoSpecifiedTests=false "$@" > /tmp/citime-work/$label.log 2>&1
rc=$?
t1=$(date +%s); l1=$(cut -d' ' -f1-3 /proc/loadavg)
x=$(ls loomgate-cli/target/surefire-reports/TEST-*.$cls.xml)
cp "$x" $OUT/$label.xml
sum=$(grep -m1 -o 'time="[^"]*" tests="[^"]*" errors="[^"]*" skipped="[^"]*" failures="[^"]*"' "$x")
echo "$label start=$start rc=$rc mvn_wall=$((t1-t0))s $sum load_before=[$l0] load_after=[$l1] args=$*" | tee -a $OUT/runs.txt
