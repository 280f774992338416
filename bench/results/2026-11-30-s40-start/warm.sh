#!/usr/bin/env bash
# warm.sh: the gateway's CPU over its first answer and then three batches of 20,000 HTTP/1.1 requests (h2load, 10
# connections), with the AOT cache's training profiles replayed (on) or not (off), alternated
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
D=/tmp/s40-after
cpu() { local s; s=$(cat /proc/$1/stat); s=${s##*) }; set -- $s; echo $(( (${12} + ${13}) * 10 )); }
for r in 1 2 3; do
  for v in on off; do
    extra=(); [[ $v == off ]] && extra=(-XX:+UnlockDiagnosticVMOptions -XX:-AOTReplayTraining)
    $J -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -XX:AOTCache=$D/gateway.aot -Xlog:aot=off "${extra[@]}" \
      -jar $D/gateway.jar serve --config $D/gateway.yaml --no-watch >/tmp/s40/warm-$v.log 2>&1 &
    pid=$!
    until curl -sf -o /dev/null http://127.0.0.1:24281/hello; do sleep 0.01; done
    line="round $r $v: first $(cpu $pid)"
    for b in 1 2 3; do
      before=$(cpu $pid)
      t=$(h2load --h1 -n 20000 -c 10 http://127.0.0.1:24281/hello 2>&1 | sed -n 's/^finished in \([0-9.]*\)s, \([0-9.]*\) req\/s.*/\2/p')
      line+=" | batch$b cpu $(( $(cpu $pid) - before )) ms, $t req/s"
    done
    kill $pid; wait $pid 2>/dev/null
    echo "$line"
  done
done
