#!/usr/bin/env bash
cd /tmp/citime-work
for i in 3 4; do
  WT=/tmp/citime-work/wt2 ./runclass.sh hostile+matrix-new-load$i 'HostileProbeTest,TrafficMatrixTest' &
  sleep 12
  ./runclass.sh origin-A-load$i OriginProbeTest -Dloomgate.originprobe.lanes=6
  wait
done
for i in 1 2; do
  ./runclass.sh hostile-B$i HostileProbeTest
  WT=/tmp/citime-work/wt2 ./runclass.sh hostile-A$i HostileProbeTest
done
./runclass.sh hostile-epoll-B1 HostileProbeTest -Dloomgate.test.transport=epoll '-Dloomgate.probe.only=tls(jdk)'
WT=/tmp/citime-work/wt2 ./runclass.sh hostile-epoll-A1 HostileProbeTest -Dloomgate.test.transport=epoll '-Dloomgate.probe.only=tls(jdk)'
./runclass.sh origin-conscrypt-B1 OriginProbeTest -Dloomgate.originprobe.lanes=1 -Dloomgate.test.tls-provider=conscrypt -Dloomgate.originprobe.origins=H1_TLS,H2_TLS -Dloomgate.originprobe.clients=H1
./runclass.sh origin-conscrypt-A1 OriginProbeTest -Dloomgate.originprobe.lanes=6 -Dloomgate.test.tls-provider=conscrypt -Dloomgate.originprobe.origins=H1_TLS,H2_TLS -Dloomgate.originprobe.clients=H1
echo done
