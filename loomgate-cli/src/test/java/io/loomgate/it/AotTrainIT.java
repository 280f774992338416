package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.loomgate.server.Transport;
import io.loomgate.testkit.JarProcess;
import io.loomgate.testkit.TestOrigin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code loomgate aot-train} trains the cache on the paths the harness's workloads take, not only TLS: plain HTTP/1.1
 * keep-alive, h2c (prior knowledge) and a crowd of idle keep-alive connections through the second, plain listener the
 * training JVM serves ({@code serve --aot-training-listener}), connections the client resets (plain and over TLS) and
 * h2 connections whose client sends frames in TLS records of their own; every answer is checked by the training
 * itself, so a count above zero is a path that answered 200 (for the resets, five requests answered before the reset;
 * for the h2 connections, a PING acknowledged); and, where epoll can run, a third listener on epoll, so that a start
 * on epoll loads epoll's classes and the foreign-function linker's from the cache, as a start on the JDK's sockets
 * loads the gateway's.
 */
class AotTrainIT {
    private static final Pattern LAST_LINE = Pattern.compile(
            "aot-train: .* trained on \\d+ requests in 1 of 2 rounds \\(HTTP/1\\.1 over TLS (\\d+), h2 (\\d+), new TLS "
                    + "connections (\\d+), "
                    + "admin and redirect (\\d+), plain HTTP/1\\.1 (\\d+), h2c (\\d+), idle keep-alive connections "
                    + "(\\d+), connections reset by the client (\\d+), h2 connections with a frame per record "
                    + "(\\d+), h2 streams open when the client closed (\\d+), on epoll (\\d+)\\)");
    /** The gateway's flags, as trained and as started on the cache (a cache is only used with the flags it was made with). */
    private static final List<String> FLAGS = List.of("-Xmx176m", "-XX:+UseSerialGC");
    /**
     * What a start on epoll loads for its first proxied request: epoll's own classes (the poller, the socket's
     * streams, the libc bindings), and java.base's foreign-function linker and layouts, which a start on the JDK's
     * sockets never loads.
     */
    private static final List<String> EPOLL_CLASSES = List.of("io.loomgate.server.EpollPoller",
            "io.loomgate.server.EpollSocket$In", "io.loomgate.server.EpollSocket$Out", "io.loomgate.server.Libc",
            "io.loomgate.server.EpollFd", "jdk.internal.foreign.abi.DowncallLinker",
            "jdk.internal.foreign.abi.x64.sysv.CallArranger", "java.lang.foreign.ValueLayout");

    @Test
    void theTrainingCoversTlsPlainHttp1H2cAndIdleConnections(@TempDir Path dir) throws Exception {
        assumeTrue(Runtime.version().feature() >= 25, "the AOT cache takes JDK 25");
        Path cache = dir.resolve("gateway.aot");
        try (JarProcess train = JarProcess.start(List.of(), List.of("aot-train", "--java", JarProcess.javaBinary(),
                "--jar", JarProcess.gatewayJar().toString(), "--output", cache.toString(), "--rounds", "2", "--time-limit", "1ms", "--",
                FLAGS.get(0), FLAGS.get(1)), Map.of())) {
            assertThat(train.awaitExit(Duration.ofMinutes(4))).as(train.output()).isZero();
            Matcher m = LAST_LINE.matcher(train.output());
            assertThat(m.find()).as(train.output()).isTrue();
            // One round, as the time limit cuts it short: said in the log, never a silently smaller training.
            assertThat(train.output()).contains("aot-train: round 1 of 2 sent in ")
                    .contains("aot-train: WARNING: this cache is trained on 1 of the 2 rounds asked for");
            // the last, on epoll, is zero where the gateway's JVM cannot run epoll (the training then says why)
            int counted = Transport.epollUnavailableReason() == null ? 11 : 10;
            for (int g = 1; g <= counted; g++) {
                assertThat(Integer.parseInt(m.group(g))).as("count %d of %s", g, m.group()).isPositive();
            }
        }
        assertThat(Files.size(cache)).isPositive();

        // Issue 40: a start on epoll finds epoll's classes and the foreign-function linker's in the cache (until
        // session 50 the training ran on the JDK's sockets only, and a start on epoll loaded ~470 classes outside it).
        assumeTrue(Transport.epollUnavailableReason() == null, "epoll cannot run here");
        for (String transport : List.of("epoll", "jdk")) {
            List<String> loaded = startOnTheCache(dir, cache, transport);
            assertThat(loaded).as("the class-loading log of a start on %s", transport)
                    .anyMatch(l -> l.contains(" io.loomgate.cli.ServeCommand source: shared objects file"));
            assertThat(loaded.stream().filter(l -> l.contains(" io.loomgate.") && !l.contains("shared objects file")))
                    .as("the gateway's classes loaded from outside the cache on %s", transport).isEmpty();
            if (transport.equals("epoll")) {
                for (String c : EPOLL_CLASSES) {
                    String line = loaded.stream().filter(l -> l.contains("] " + c + " source: ")).findFirst()
                            .orElse(c + " not loaded");
                    assertThat(line).as("%s on a start on epoll", c).endsWith("] " + c + " source: shared objects file");
                }
            }
        }
    }

    /**
     * {@code serve} of the gateway jar on {@code cache} ({@code AOTMode=on}: a cache that cannot be used is a
     * start-up error), plain HTTP on {@code transport} with a route to an origin, one request answered through it;
     * the class-loading log by then.
     */
    private static List<String> startOnTheCache(Path dir, Path cache, String transport) throws Exception {
        try (TestOrigin origin = new TestOrigin()) {
            origin.enqueue(TestOrigin.Reply.ok("hello from origin"));
            Path yaml = dir.resolve(transport + ".yaml");
            Files.writeString(yaml, """
                    server: { address: 127.0.0.1, port: 0, transport: %s }
                    admin: { port: 0 }
                    routes:
                      - { id: origin, uri: "%s", predicates: [ "Path=/**" ] }
                    """.formatted(transport, origin.uri()));
            Path classes = dir.resolve(transport + ".classes");
            List<String> jvm = new ArrayList<>(FLAGS);
            jvm.addAll(List.of("-XX:AOTCache=" + cache, "-XX:AOTMode=on", "-Dloomgate.aot-cache=" + cache,
                    "-Xlog:class+load=info:file=" + classes));
            try (JarProcess gw = JarProcess.start(JarProcess.gatewayJar(), jvm,
                    List.of("serve", "--config", yaml.toString(), "--no-watch"), Map.of())) {
                int port = gw.awaitListening(Duration.ofSeconds(90));
                // HTTP/1.1: the JDK client's HTTP/2 default asks an http:// origin for an h2c upgrade, a path not trained
                HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                HttpResponse<String> r = client.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/hello")).timeout(Duration.ofSeconds(30)).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).as(gw.output()).isEqualTo(200);
                assertThat(gw.output()).contains("transport " + transport + ")").contains("AOT cache " + cache + ": in use");
                return Files.readAllLines(classes);
            }
        }
    }
}
