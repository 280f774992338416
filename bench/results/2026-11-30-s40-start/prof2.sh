#!/usr/bin/env bash
# prof2.sh TAG DIR none|aot [extra flags]: one start of DIR/gateway.jar, timeline (ms after exec) and CPU by thread
tag=$1 dir=$2 way=$3; shift 3
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
FLAGS=(-Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -XX:+ExitOnOutOfMemoryError)
aotf=()
[[ $way == aot ]] && aotf=(-XX:AOTCache=$dir/gateway.aot -Xlog:aot=off -Dloomgate.aot-cache=$dir/gateway.aot)
rm -f /tmp/s40/$tag.*
r=$(TTFR_T0=1 TTFR_THREADS=/tmp/s40/$tag.threads TTFR_LOG=/tmp/s40/$tag.log /tmp/s40/ttfr.py 24281 /hello -- $J "${FLAGS[@]}" "${aotf[@]}" "$@" \
  -jar $dir/gateway.jar serve --config /tmp/s40-base/gateway.yaml --no-watch)
echo "$tag: $r"
awk '/^T40/ {if (!t0) t0=$3; printf "%s=%d ", $2, $3-t0} END {print ""}' /tmp/s40/$tag.log
head -6 /tmp/s40/$tag.threads | tr '\n' ';'; echo
