#!/usr/bin/env bash
# alternated: ab.sh ROUNDS label1=JAR1[@AOTFILE] label2=... : per round "label wall_ms cpu_ms"; EXTRA_<label> flags
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java; F="-Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -XX:+ExitOnOutOfMemoryError"
W=${W:-/tmp/startup-s38}
R=$1; shift
echo "# $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r=1;r<=R;r++)); do
  line="round $r:"
  for spec in "$@"; do
    label=${spec%%=*}; rest=${spec#*=}; jar=${rest%%@*}; aot=""; [[ $rest == *@* ]] && aot="-XX:AOTCache=${rest#*@} -Xlog:aot=off"
    ev="EXTRA_$label"; extra=${!ev:-}
    line+=" $label $($W/ttfr_cpu.py 24391 /hello -- $J $F $aot $extra -jar $jar serve --config $W/gw.yaml --no-watch)"
  done
  echo "$line"
done
echo "# $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
