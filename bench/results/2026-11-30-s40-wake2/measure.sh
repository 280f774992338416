#!/bin/bash
# usage: measure.sh PID CONNS SECONDS ; per-thread schedstat deltas (run ms, runqueue-wait ms, slices) + ctx switches, req/s, CPU/req
P=$1; C=$2; S=${3:-8}
snap() { for t in /proc/$P/task/*; do id=${t##*/}; echo "$id $(cat $t/comm | tr ' ' _) $(cat $t/schedstat) $(awk '/voluntary_ctxt_switches/ {printf "%s ", $2}' $t/status)"; done; }
u0=$(awk '{print $14+$15}' /proc/$P/stat)
snap > /tmp/wake2/s0
out=$(taskset -c 1 wrk -t1 -c$C -d${S}s http://127.0.0.1:23481/hello)
snap > /tmp/wake2/s1
u1=$(awk '{print $14+$15}' /proc/$P/stat)
n=$(awk '/requests in/ {print $1}' <<< "$out")
echo "conns $C req/s $((n / S)) CPU us/req $(( (u1-u0)*10000/n )) load $(cut -d' ' -f1 /proc/loadavg)"
join <(sort /tmp/wake2/s0) <(sort /tmp/wake2/s1) | awk -v n=$n '{ run=($9-$3)/1e6; wait=($10-$4)/1e6; sl=$11-$5; vol=$12-$6; inv=$13-$7; if (run>5) printf "  %-16s run %7.1f ms  rq-wait %7.1f ms  slices %6d (%.2f/req)  vol %d invol %d\n", $2, run, wait, sl, sl/n, vol, inv }'
