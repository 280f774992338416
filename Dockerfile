# Loomgate container image.
#   docker build -t loomgate .                       (bases from the public registries, see the ARGs)
#   ./loomgate dist                                  (bases built locally by deploy/container/build-local-bases.sh,
#                                                     no registry needed; the image saved as an OCI archive)
# Stage 1 builds the jar with the Maven wrapper and links a JRE holding only the modules the jar uses (jdeps);
# stage 2 is that JRE and the jar on a small base, run as a non-root user. Defaults are pinned to exact versions.
ARG BUILD_BASE=docker.io/library/eclipse-temurin:25.0.1_8-jdk-noble
ARG RUNTIME_BASE=docker.io/library/debian:12.8-slim

FROM ${BUILD_BASE} AS build
# -o (offline) when ~/.m2 is mounted into the build, as the local test does; empty: download from Maven Central.
ARG MAVEN_ARGS=""
# The gateway-only jar (no lab: no backend, load or bench) for the image; the full one for the `lab` stage, which
# compose.yaml uses for its mock backend and load generator.
ARG LOOMGATE_JAR=loomgate-cli/target/loomgate-gateway.jar
ARG LOOMGATE_FULL_JAR=loomgate-cli/target/loomgate.jar
# The commit the jar records (its manifest; loomgate --version): the build context has no .git, so dist passes it.
ARG LOOMGATE_COMMIT=unknown
WORKDIR /src
COPY . .
# Only the CLI module and the modules it is built from (-pl loomgate-cli -am: not the example, not the bench
# programs), and no test sources compiled (-Dmaven.test.skip=true): the image needs the two runnable jars, which are
# the same bytes as a full build's, and the tests run outside the image. That is about half of the javac work.
RUN ./mvnw -B -q ${MAVEN_ARGS} -pl loomgate-cli -am -Dmaven.test.skip=true -Dloomgate.commit=${LOOMGATE_COMMIT} \
        package \
 && cp "${LOOMGATE_JAR}" /loomgate.jar && cp "${LOOMGATE_FULL_JAR}" /loomgate-full.jar
# The modules jdeps finds, less java.desktop: only SnakeYAML's bean introspector and Jackson's optional java.beans
# support reach it, neither is used to read the config, and it is the largest module. jdk.jfr and jdk.management are
# named anyway: the pinned-thread monitor and the thread dump reach them by name.
# The JRE and the jar go where the runtime stage has them, so the AOT cache below is made on the very JVM and jar path
# it serves.
RUN modules="$(jdeps --ignore-missing-deps --print-module-deps --multi-release 21 /loomgate.jar \
        | sed -e 's/java\.desktop,//' -e 's/,java\.desktop$//')" \
 && jlink --add-modules "${modules},jdk.jfr,jdk.management,jdk.unsupported" \
        --strip-java-debug-attributes --no-man-pages --no-header-files --compress=zip-6 --output /opt/loomgate/jre \
 && /opt/loomgate/jre/bin/java --list-modules > /opt/loomgate/jre/modules.txt \
 && cp /loomgate.jar /opt/loomgate/loomgate.jar
# The JDK 25 ahead-of-time cache (JEP 483, 514, 515: classes loaded and linked, method profiles): a training run of
# the gateway on the image's JRE with the ENTRYPOINT's GC and object-header flags (a cache is only used by the JVM
# and flags that made it), two rounds (aot-train's default: a fixed amount) of TLS HTTP/1.1 and h2, new connections and the admin endpoints from the
# lab's `aot-train` on the build JDK, and plain HTTP/1.1 on a listener on epoll where the JRE runs it (so that
# LOOMGATE_TRANSPORT=epoll finds its classes in the cache too), then SIGTERM, at which the JVM writes the cache (docs/deployment.md). The cache
# records the jar's time: the jar first gets the time it has in the image (podman build --timestamp gives every file
# SOURCE_DATE_EPOCH, which ./loomgate dist passes; 0 otherwise), not the time of this build. (The cache is still not
# the same from build to build: docs/deployment.md, "The release".)
ARG SOURCE_DATE_EPOCH=0
RUN touch -d "@${SOURCE_DATE_EPOCH}" /opt/loomgate/loomgate.jar \
 && java -jar /loomgate-full.jar aot-train --java /opt/loomgate/jre/bin/java --jar /opt/loomgate/loomgate.jar \
        --output /opt/loomgate/loomgate.aot -- -XX:+UseSerialGC -XX:+UseCompactObjectHeaders \
        -XX:FlightRecorderOptions=memorysize=2m \
 && { /opt/loomgate/jre/bin/java -Xmx16m -XX:TieredStopAtLevel=1 -XX:AOTCacheOutput=/opt/loomgate/probe.aot \
        -Xlog:aot=off -cp /opt/loomgate/loomgate.jar io.loomgate.cli.Probe http://127.0.0.1:9/ >/dev/null 2>&1 || true; } \
 && test -s /opt/loomgate/probe.aot

# The lab (mock backend, load generator) on the build stage's JDK and shell: compose.yaml's backend and load.
FROM build AS lab
USER 10001:10001
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-XX:+ExitOnOutOfMemoryError", "-jar", "/loomgate-full.jar"]

# The gateway image: the default target, so it stays the last stage.
FROM ${RUNTIME_BASE}
COPY --from=build /opt/loomgate/ /opt/loomgate/
COPY deploy/container/gateway.yaml /etc/loomgate/gateway.yaml
# Numeric, so it needs no /etc/passwd entry in the base.
USER 10001:10001
EXPOSE 8080 9977
# Exec form: the JVM is PID 1 and gets SIGTERM itself, so `docker stop` / a pod's termination drains (exit 0).
# The heap follows the container's memory limit (at most 50% of it; the JVM reads cgroup limits): the rest, about 100 MB
# measured at 10,000 connections, is the AOT cache's classes (33 MB of them copied on write), code cache, metaspace,
# JFR's buffers, malloc's arenas and the carriers, so a 256 MiB container gets a 128 MiB heap and stays under its
# limit (at 60% it was OOM-killed at 10,000 connections, twice). The heap starts at 16 MiB and grows with the live set (a
# young generation sized from a large start heap is all touched within seconds of traffic: 60-70 MB more RSS idle).
# The C heap trimmed every 5 s (the JIT's arenas, freed to malloc after a compilation burst, otherwise stay resident).
# Serial GC and compact object headers (JDK 25, JEP 519), as the launcher; caps on the code cache and metaspace well
# above their use (13 and 3 MB), and JFR (the pinned-thread monitor) in 2 MB of buffers instead of about 15: the
# reasons and the measurements are in docs/performance.md ("Memory"). The AOT cache made above, with the same flags
# (JFR's option is one the cache must be made with); should it not fit (other flags given to the JVM), the JVM
# starts without it, and instead of its own five lines of warnings and errors (-Xlog:aot=off) the gateway logs one
# line saying so (-Dloomgate.aot-cache names the file for that line). An OutOfMemoryError ends the process so the
# orchestrator restarts it rather than leaving a half-working gateway serving. The JVM's exit does not wait 300 ms
# for threads blocked in native code (the JDK's own pollers always are), so a drained gateway's process ends at once.
ENTRYPOINT ["/opt/loomgate/jre/bin/java", "-XX:MaxRAMPercentage=50", "-Xms32m", \
            "-XX:NewSize=16m", "-XX:MaxNewSize=16m", \
            "-XX:+UseSerialGC", "-XX:+UseCompactObjectHeaders", \
            "-XX:ReservedCodeCacheSize=64m", "-XX:MaxMetaspaceSize=128m", "-XX:FlightRecorderOptions=memorysize=2m", \
            "-XX:TrimNativeHeapInterval=1000", "-XX:UserThreadWaitAttemptsAtExit=0", \
            "-XX:AOTCache=/opt/loomgate/loomgate.aot", "-Xlog:aot=off", \
            "-Dloomgate.aot-cache=/opt/loomgate/loomgate.aot", \
            "-XX:+ExitOnOutOfMemoryError", "-jar", "/opt/loomgate/loomgate.jar"]
CMD ["serve", "--config", "/etc/loomgate/gateway.yaml"]
# No curl in the image: the probe is a 30-line class in the jar, run on a small heap, on an AOT cache of its own (made
# above by one probe of a closed port: the JVM's start-up classes and the probe's, 11 MB): the jlinked JRE has no CDS
# archive, so without it every class comes out of the compressed modules image. Half the CPU per probe (0.08 s against
# 0.18 s, medians of 20 alternated starts at load ~21, session 59); -Xlog:aot=off: a cache that does not fit is skipped
# without a word.
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 \
    CMD ["/opt/loomgate/jre/bin/java", "-Xmx16m", "-XX:TieredStopAtLevel=1", "-XX:AOTCache=/opt/loomgate/probe.aot", \
         "-Xlog:aot=off", "-cp", "/opt/loomgate/loomgate.jar", "io.loomgate.cli.Probe", \
         "http://127.0.0.1:9977/health/ready"]
