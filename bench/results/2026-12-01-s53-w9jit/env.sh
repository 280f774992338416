# sourced by this folder's runs: this branch's ports (29500-29599), main's frozen build as base
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 SHARED=/work/shared/bench
export ORIGIN_PORT=29500 PORT=29501 ADMIN_PORT=29511 WORK=/tmp/w9jit-hp BASE=${BASE:-/tmp/w9jit-base}
