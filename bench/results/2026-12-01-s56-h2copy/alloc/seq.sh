#!/usr/bin/env bash
cd /work/wt/h2copy
export WORK=/tmp/h2copy-alloc/out ORIGIN_PORT=29580 PORT=29581 ADMIN_PORT=29591 NGHTTPD_PORT=29582
J=/tmp/h2copy-jars
run() { # jar label shape [data]
  if [[ -n ${4:-} ]]; then DATA=$4 bench/alloc/run.sh $J/$1.jar $2 $3; else bench/alloc/run.sh $J/$1.jar $2 $3; fi
}
run main main-post1k w8h2 /tmp/h2copy-alloc/post1k.bin
run after after-post1k w8h2 /tmp/h2copy-alloc/post1k.bin
run main main-post16k w8h2 /tmp/h2copy-alloc/post16k.bin
run after after-post16k w8h2 /tmp/h2copy-alloc/post16k.bin
run main main w8
run after after w8
run after after-post1k-2 w8h2 /tmp/h2copy-alloc/post1k.bin
run main main-post1k-2 w8h2 /tmp/h2copy-alloc/post1k.bin
run after after-post16k-2 w8h2 /tmp/h2copy-alloc/post16k.bin
run main main-post16k-2 w8h2 /tmp/h2copy-alloc/post16k.bin
run after after-2 w8
run main main-2 w8
echo SEQ DONE
