#!/bin/bash
# once a second: time, libpod_parent's cumulative CPU ns (podman containers' CPU, cgroup v1 cpuacct), while $1 lives
while kill -0 $1 2>/dev/null; do
  echo "$(date +%s.%N | cut -c1-14) $(cat /sys/fs/cgroup/cpuacct/libpod_parent/cpuacct.usage 2>/dev/null || echo -)"
  sleep 1
done
