#!/bin/bash
# usage: start.sh BLOCK_MILLIS [extra jvm args]; prints pid
b=$1; shift
taskset -c 0 nice -n 10 /usr/lib/jvm/temurin-25-jdk-amd64/bin/java -Xmx256m -XX:+UseSerialGC -XX:+UseCompactObjectHeaders -Dloomgate.epoll.block-millis=$b "$@" -jar /tmp/wake2/gw.jar serve --config /tmp/wake2/gw.yaml > /tmp/wake2/gw-$b.log 2>&1 &
echo $!
