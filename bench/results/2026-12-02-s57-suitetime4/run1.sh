#!/bin/bash
# usage: run1.sh <dir> <TestClass> <label>
dir=$1; cls=$2; label=$3
cd $dir || exit 1
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
rm -f loomgate-cli/target/surefire-reports/TEST-*.$cls.xml
load=$(cut -d' ' -f1 /proc/loadavg)
./mvnw -B -q -o -Dmaven.repo.local=/tmp/m2-suitetime4/repository -pl loomgate-cli -am test -Dtest="$cls" -Dsurefire.failIfNoSpecifiedTests=false -Djacoco.skip=true > /tmp/st4/$label-$cls.log 2>&1
rc=$?
x=$(ls loomgate-cli/target/surefire-reports/TEST-*.$cls.xml 2>/dev/null)
t=$(grep -o '<testsuite [^>]*' $x | grep -o 'time="[^"]*"\|tests="[0-9]*"\|failures="[0-9]*"\|errors="[0-9]*"' | tr '\n' ' ')
echo "$(date -u +%H:%M:%S) $label $cls rc=$rc load_before=$load load_after=$(cut -d' ' -f1 /proc/loadavg) $t" | tee -a /tmp/st4/pairs.log
