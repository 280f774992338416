#!/usr/bin/env bash
# Count-based: C2 work in the first N h2 requests (W9's shape) after M HTTP/1.1-over-TLS requests, per cache variant.
set -u
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
R=/work/wt/h2perf
export BENCH_TLS_CERT=/tmp/loomgate-bench/tls/cert.pem BENCH_TLS_KEY=/tmp/loomgate-bench/tls/key.pem JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
taskset -c 1 /tmp/loomgate-bench/bin/backend -addr 127.0.0.1:28180 -latency 100ms > /dev/null 2>&1 & B=$!
trap 'kill $B 2>/dev/null' EXIT
FL="-XX:+ExitOnOutOfMemoryError -Xmx256m -Xms16m -XX:+UseSerialGC -XX:ReservedCodeCacheSize=64m -XX:MaxMetaspaceSize=128m -XX:FlightRecorderOptions=memorysize=2m -XX:+UseCompactObjectHeaders -Xlog:aot=off -XX:+PrintCompilation"
c2() { local s=0 t; for t in /proc/$1/task/*; do [[ $(cat $t/comm 2>/dev/null) == C2* ]] && s=$((s + $(awk '{print $14+$15}' $t/stat))); done; echo $s; }
tot() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' /proc/$1/stat; }
for round in 1 2; do
for v in launcher rich rich-eager; do
  case $v in
    launcher) cache=$R/loomgate-cli/target/loomgate-gateway.aot; extra="" ;;
    rich) cache=/tmp/h2perf-s37/h2rich.aot; extra="" ;;
    rich-eager) cache=/tmp/h2perf-s37/h2rich.aot; extra="-XX:+UnlockExperimentalVMOptions -XX:+AOTCompileEagerly" ;;
  esac
  taskset -c 0 $J $FL -XX:AOTCache=$cache -Dloomgate.aot-cache=$cache $extra -jar $R/loomgate-cli/target/loomgate-gateway.jar serve --config /tmp/harness-phases/gateway.yaml --no-watch > /tmp/h2perf-s37/eager-$v.log 2>&1 & P=$!
  for _ in $(seq 600); do curl -sk -o /dev/null -m 2 https://127.0.0.1:28181/hello && break; sleep 0.2; done
  t0=$(tot $P); k0=$(c2 $P)
  taskset -c 1 h2load --h1 -c256 -n ${M:-20000} https://127.0.0.1:28181/hello > /dev/null 2>&1
  t1=$(tot $P); k1=$(c2 $P); ms1=$(( $(date +%s%N) / 1000000 ))
  n=$(taskset -c 1 h2load -c200 -m10 -n ${N:-20000} https://127.0.0.1:28181/api/data 2>&1 | awk '/^requests:/ {print $8}')
  t2=$(tot $P); k2=$(c2 $P)
  # compiles (tier 4) logged during the h2 part: PrintCompilation's ms since JVM start; JVM start ~ process start
  st=$(( $(date +%s%N)/1000000 - $(ps -o etimes= -p $P) * 1000 ))
  c4=$(awk -v a=$((ms1 - st)) '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && !/made not/ && $1 >= a { for (i = 3; i <= NF; i++) if ($i ~ /^[0-4]$/) { if ($i == 4) c++; break } } END { print c + 0 }' /tmp/h2perf-s37/eager-$v.log)
  printf "round %d %-10s h1 part: CPU %5.1f s, C2 %4.1f s | h2 part (%s req): CPU %5.1f s, C2 %4.1f s, C2 compiles started ~%s, CPU-C2 %.0f us/req | load %s | %s\n" \
    $round $v $(echo "($t1-$t0)/100" | bc -l) $(echo "($k1-$k0)/100" | bc -l) "$n" $(echo "($t2-$t1)/100" | bc -l) $(echo "($k2-$k1)/100" | bc -l) "$c4" \
    $(echo "(($t2-$t1)-($k2-$k1))*10000/$n" | bc -l) "$(cut -d' ' -f1 /proc/loadavg)" "$(grep -o 'AOT cache.*: [a-z ]*' /tmp/h2perf-s37/eager-$v.log | head -1 | cut -c1-80)"
  kill $P; wait $P 2>/dev/null
done
done
