#!/usr/bin/env bash
cd /work/wt/h2copy
export WORK=/tmp/h2copy-alloc/out ORIGIN_PORT=29580 PORT=29581 ADMIN_PORT=29591 NGHTTPD_PORT=29582
J=/tmp/h2copy-jars
DATA=/tmp/h2copy-alloc/post1k.bin bench/alloc/run.sh $J/base.jar base-post1k w8h2
DATA=/tmp/h2copy-alloc/post1k.bin bench/alloc/run.sh $J/after.jar after-post1k-3 w8h2
echo SEQ DONE
