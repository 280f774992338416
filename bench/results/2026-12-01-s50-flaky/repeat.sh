#!/bin/bash
# usage: flaky-repeat.sh DIR LABEL N OUTFILE
DIR=$1; LABEL=$2; N=$3; OUT=$4
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
TESTS=${TESTS:-ConnectFailureTest,ConscryptConnectFailureTest,UpstreamFailureTest,Http2UpstreamTest,HttpsOriginTest,OriginProbeTest,WaiterQueueTest,UpstreamResilienceTest}
cd $DIR
for i in $(seq 1 $N); do
  for prov in conscrypt jdk; do
    { echo "=== $LABEL repeat $i provider $prov"; date -u; uptime; } >> $OUT
    rm -rf */target/surefire-reports
    nice -n 5 ./mvnw -B -q -o -Dmaven.repo.local=/tmp/m2-flaky/repository -pl loomgate-cli,loomgate-conscrypt -am test \
      -Dtest=$TESTS -Dsurefire.failIfNoSpecifiedTests=false -Dloomgate.test.tls-provider=$prov > /tmp/flaky-last-$LABEL.txt 2>&1
    echo "mvn rc=$?" >> $OUT
    python3 - >> $OUT <<'PY'
import glob, xml.etree.ElementTree as ET
t=f=e=s=0
for p in glob.glob('*/target/surefire-reports/TEST-*.xml'):
    r=ET.parse(p).getroot()
    t+=int(r.get('tests'));f+=int(r.get('failures'));e+=int(r.get('errors'));s+=int(r.get('skipped'))
    for tc in r.findall('testcase'):
        for k in ('failure','error'):
            x=tc.find(k)
            if x is not None:
                print("  FAIL", r.get('name'), tc.get('name'), (x.get('message') or '')[:400].replace('\n',' '))
print(f"  runs={t} failures={f} errors={e} skipped={s}")
PY
    mkdir -p /tmp/flaky-reports/$LABEL-$i-$prov && cp -r */target/surefire-reports /tmp/flaky-reports/$LABEL-$i-$prov/ 2>/dev/null
    { date -u; uptime; } >> $OUT
  done
done
echo DONE >> $OUT
