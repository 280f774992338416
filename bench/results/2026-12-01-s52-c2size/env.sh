# sourced by the runs of this folder: ports of this branch (28700-28799), main's frozen build as base
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 SHARED=/work/shared/bench
export ORIGIN_PORT=28700 PORT=28701 ADMIN_PORT=28711 WORK=/tmp/c2size-hp BASE=/tmp/c2size-base
