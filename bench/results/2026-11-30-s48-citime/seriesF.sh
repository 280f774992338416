#!/usr/bin/env bash
cd /tmp/citime-work
R=/work/wt/citime/bench/results/2026-11-30-s48-citime
./runclass.sh guard-LayeringApiSurface 'LayeringTest,ApiSurfaceTest'
./runclass.sh main-pair-F1 'OriginProbeTest,HostileProbeTest'
for c in OriginProbeTest HostileProbeTest; do cp /work/wt/citime/loomgate-cli/target/surefire-reports/TEST-*.$c.xml $R/main-pair-F1-$c.xml; done
./runclass.sh origin-conscrypt-A2 OriginProbeTest -Dloomgate.originprobe.lanes=6 -Dloomgate.test.tls-provider=conscrypt -Dloomgate.originprobe.origins=H1_TLS,H2_TLS -Dloomgate.originprobe.clients=H1
./runclass.sh hostile-epoll-A2 HostileProbeTest -Dloomgate.test.transport=epoll '-Dloomgate.probe.only=tls(jdk)'
echo done
