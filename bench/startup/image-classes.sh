#!/usr/bin/env bash
# Classes loaded outside the image's AOT cache, per transport: for each round and transport in turn, a container of
# IMAGE with LOOMGATE_TRANSPORT and -Xlog:class+load (JAVA_TOOL_OPTIONS), its route's origin the container's own
# admin listener (UPSTREAM_URI=http://127.0.0.1:9977), ten GETs of /health/ready through the gateway once it answers,
# then stopped; one line each: transport, classes from the cache, outside it: java.base, other JDK modules, spun,
# the jar's.
#   bench/startup/image-classes.sh IMAGE       ROUNDS=2 TRANSPORTS="jdk epoll" PODMAN="podman --runtime runc"
set -euo pipefail
IMAGE=$1
ROUNDS=${ROUNDS:-2}
TRANSPORTS=${TRANSPORTS:-"jdk epoll"}
PODMAN=${PODMAN:-podman --runtime runc}
PORT=${PORT:-24295}
echo "# $(date -u +%FT%TZ) $IMAGE; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# transport from_cache outside: java.base other_jdk spun jar"
for ((r = 1; r <= ROUNDS; r++)); do
    for t in $TRANSPORTS; do
        name=loomgate-classes-$$-$t-$r
        $PODMAN run -d --name "$name" --ulimit nofile=20000:20000 --ulimit nproc=4096:4096 -p "127.0.0.1:$PORT:8080" \
            -e LOOMGATE_ADMIN_TOKEN=tttttttttttttttttttttttttttttttt -e LOOMGATE_TRANSPORT="$t" \
            -e UPSTREAM_URI=http://127.0.0.1:9977 -e JAVA_TOOL_OPTIONS=-Xlog:class+load=info "$IMAGE" >/dev/null
        for ((i = 0; i < 600; i++)); do
            curl -fsS -o /dev/null "http://127.0.0.1:$PORT/health/ready" 2>/dev/null && break
            sleep 0.1
        done
        for ((i = 0; i < 10; i++)); do curl -fsS -o /dev/null "http://127.0.0.1:$PORT/health/ready"; done
        log=$($PODMAN logs "$name" 2>&1)
        $PODMAN rm -f "$name" >/dev/null
        shared=$(grep -c 'source: shared objects file' <<<"$log" || true)
        outside=$(grep 'source: ' <<<"$log" | grep -v 'shared objects file' || true)
        base=$(grep -c 'source: jrt:/java.base' <<<"$outside" || true)
        jdk=$(grep 'source: jrt:/' <<<"$outside" | grep -vc 'jrt:/java.base' || true)
        jar=$(grep -c 'source: file:\|source: jar:' <<<"$outside" || true)
        all=$(grep -c 'source: ' <<<"$outside" || true)
        echo "$t $shared $base $jdk $((all - base - jdk - jar)) $jar $(grep -o 'transport [a-z]*)' <<<"$log" | head -1)"
    done
done
echo "# $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg)"
