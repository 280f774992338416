#!/usr/bin/env bash
B=/tmp/before44; A=/tmp/after44; J=loomgate-cli/target
date; uptime
cd /work/main && LAUNCHER_FLAGS=1 ROUNDS=9 NICE=-5 WORK=/tmp/ab44 bench/startup/ab.sh $B/$J/loomgate-gateway.jar $B/$J/loomgate.jar $A/$J/loomgate-gateway.jar $A/$J/loomgate.jar
date; uptime
/tmp/w12.sh $B; /tmp/w12.sh $A
/tmp/w89.sh $B; /tmp/w89.sh $A
/tmp/w12.sh $A; /tmp/w12.sh $B
date; uptime
