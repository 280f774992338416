#!/usr/bin/env bash
# usage: flaky2-suite.sh N  -> clean clone of main into /tmp/flaky2-runN, CI=true ./loomgate test
N=$1
D=/tmp/flaky2-run$N
rm -rf $D
git clone -q ${SRC:-/work/main} $D; (cd $D && git checkout -q ${REV:-HEAD})
cd $D
echo "run $N commit $(git rev-parse --short HEAD) start $(date -u +%H:%M:%S) load $(cat /proc/loadavg)"
start=$(date +%s)
CI=true PATH=$HOME/go/bin:/usr/local/go/bin:$PATH MAVEN_ARGS=-Dmaven.repo.local=/tmp/m2-flaky2/repository ./loomgate test $EXTRA > $D.log 2>&1
rc=$?
end=$(date +%s)
echo "run $N rc $rc end $(date -u +%H:%M:%S) wall $(( (end-start)/60 )):$(printf %02d $(( (end-start)%60 ))) load $(cat /proc/loadavg)"
