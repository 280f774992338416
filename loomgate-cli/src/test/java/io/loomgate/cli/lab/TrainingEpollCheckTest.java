package io.loomgate.cli.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The training learns from the gateway's own log whether its epoll listener ({@code transport: auto}) runs on epoll:
 * {@code Transport.resolve}'s line where it cannot (its wording is checked in core's TransportAutoFallbackTest) gives
 * the reason the training prints; without that line the listener is on epoll and the training sends it traffic.
 * Where epoll cannot run is not reachable on this build's machine (Linux, Java 25, the jar's manifest grants native
 * access), so this reads the line as the gateway writes it.
 */
class TrainingEpollCheckTest {
    @Test
    void theReasonComesFromAutosFallbackLine(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("gateway.log");
        Files.writeString(log, """
                2026-12-01T04:00:00.000Z INFO  [main] ServeCommand - AOT cache x.aot: not used
                2026-12-01T04:00:01.000Z INFO  [main] Transport - listener and connections to origins: transport \
                auto runs on the JDK's sockets: epoll is Linux's (this is Mac OS X)
                2026-12-01T04:00:01.100Z INFO  [main] ServedGateway - loomgate listening on 127.0.0.1:8443
                """);
        assertThat(TrainingGateway.epollUnavailable(log)).isEqualTo("epoll is Linux's (this is Mac OS X)");

        Files.writeString(log, """
                2026-12-01T04:00:01.100Z INFO  [main] ServedGateway - loomgate listening on 127.0.0.1:8443 (virtual \
                threads, max 10000 connections, transport jdk), routes [api], admin on 127.0.0.1:9977
                """);
        assertThat(TrainingGateway.epollUnavailable(log)).isNull();
    }
}
