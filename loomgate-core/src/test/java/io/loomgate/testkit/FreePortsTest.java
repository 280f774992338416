package io.loomgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FreePorts}: a port taken on purpose between the probe and the bind (a listener here, a child process) is
 * started again on another port; any other failure is thrown after one start; a port lost every time gives up after
 * {@link FreePorts#TRIES} starts saying so; the refused port refuses and cannot be taken.
 */
class FreePortsTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @Test
    void aPortTakenBetweenTheProbeAndTheBindIsStartedAgainOnAnother() throws Exception {
        List<Integer> tried = new ArrayList<>();
        List<ServerSocket> thieves = new ArrayList<>();
        try (ServerSocket started = FreePorts.start(port -> {
            tried.add(port);
            if (tried.size() == 1) {
                thieves.add(new ServerSocket(port, 1, LOOPBACK)); // another socket takes it first
            }
            return new ServerSocket(port, 50, LOOPBACK);
        })) {
            assertThat(tried).hasSize(2);
            assertThat(tried.get(1)).isNotEqualTo(tried.get(0));
            assertThat(started.getLocalPort()).isEqualTo(tried.get(1));
            assertThat(thieves.getFirst().getLocalPort()).as("the first port is still the other socket's")
                    .isEqualTo(tried.get(0));
        } finally {
            for (ServerSocket t : thieves) {
                t.close();
            }
        }
    }

    @Test
    void aChildProcessThatLostItsPortIsStartedAgainOnAnother(@TempDir Path dir) throws Exception {
        List<Integer> tried = new ArrayList<>();
        List<String> firstOutput = new ArrayList<>();
        try (ServerSocket thief = new ServerSocket()) {
            WebServer server = FreePorts.start(port -> {
                tried.add(port);
                if (tried.size() == 1) {
                    thief.bind(new InetSocketAddress(LOOPBACK, port), 1);
                }
                try {
                    return WebServer.start(dir, port);
                } catch (IllegalStateException e) {
                    firstOutput.add(e.getMessage());
                    throw e;
                }
            });
            try (server) {
                assertThat(tried).hasSize(2);
                assertThat(firstOutput.getFirst()).as("the first child's output").containsIgnoringCase(
                        "address already in use");
                assertThat(server.port()).isEqualTo(tried.get(1));
                try (Socket s = new Socket(LOOPBACK, server.port())) {
                    s.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
                    s.setSoTimeout(30_000);
                    assertThat(new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1))
                            .as("the second child serves").startsWith("HTTP/1.1 200");
                }
            }
        }
    }

    @Test
    void aFailureOtherThanALostBindIsThrownAfterOneStart(@TempDir Path dir) throws Exception {
        List<Integer> tried = new ArrayList<>();
        IOException refused = new IOException("gateway.yaml:3: admin.port: 70000 is not a port");
        assertThatThrownBy(() -> FreePorts.start(port -> {
            tried.add(port);
            throw refused;
        })).isSameAs(refused);
        assertThat(tried).hasSize(1);

        tried.clear();
        AssertionError notReady = new AssertionError("the gateway did not report listening within 90 s");
        assertThatThrownBy(() -> FreePorts.start(port -> {
            tried.add(port);
            throw notReady;
        })).isSameAs(notReady);
        assertThat(tried).hasSize(1);

        tried.clear(); // a child process that fails for another reason: a directory that is not there
        assertThatThrownBy(() -> FreePorts.start(port -> {
            tried.add(port);
            return WebServer.start(dir.resolve("missing"), port);
        })).isInstanceOf(IllegalStateException.class).hasMessageContaining("exited")
                .hasMessageNotContaining("already in use");
        assertThat(tried).hasSize(1);
    }

    @Test
    void aPortLostAtEveryStartGivesUpAfterTheTriesSayingSo() throws Exception {
        List<Integer> tried = new ArrayList<>();
        List<ServerSocket> thieves = new ArrayList<>();
        try {
            assertThatThrownBy(() -> FreePorts.start(port -> {
                tried.add(port);
                thieves.add(new ServerSocket(port, 1, LOOPBACK));
                return new ServerSocket(port, 50, LOOPBACK);
            })).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("taken before the start bound it, " + FreePorts.TRIES + " starts in a row")
                    .hasRootCauseInstanceOf(BindException.class)
                    .satisfies(e -> assertThat(e.getSuppressed()).hasSize(FreePorts.TRIES - 1));
            assertThat(tried).hasSize(FreePorts.TRIES).doesNotHaveDuplicates();
        } finally {
            for (ServerSocket t : thieves) {
                t.close();
            }
        }
    }

    @Test
    void portsProbedTogetherAreAllDifferent() throws Exception {
        assertThat(new HashSet<>(FreePorts.probe(20))).hasSize(20);
    }

    @Test
    void theRefusedPortRefusesAndNoListenerCanTakeIt() throws Exception {
        int port = FreePorts.refused();
        assertThat(FreePorts.refused()).isEqualTo(port);
        for (int i = 0; i < 3; i++) {
            try (Socket s = new Socket()) {
                assertThatThrownBy(() -> s.connect(new InetSocketAddress(LOOPBACK, port), 5_000))
                        .isInstanceOf(java.net.ConnectException.class).hasMessageContaining("refused");
            }
        }
        assertThatThrownBy(() -> new ServerSocket(port, 1, LOOPBACK).close()).isInstanceOf(BindException.class);
        assertThatThrownBy(() -> new ServerSocket(port, 1).close()).isInstanceOf(BindException.class);
    }

    @Test
    void aLostBindIsRecognisedInTheCausesAndInAProcessOutput() {
        assertThat(FreePorts.lostBind(new IOException("the admin listener cannot listen",
                new IOException("127.0.0.1:9977", new BindException("Address already in use"))))).isTrue();
        assertThat(FreePorts.lostBind(new IllegalStateException("the gateway exited with 1:\nloomgate: cannot listen "
                + "on 127.0.0.1:41234: Address already in use"))).isTrue();
        assertThat(FreePorts.saysLostBind("Error: cannot start pipelines: listen tcp 127.0.0.1:4318: bind: address "
                + "already in use")).isTrue();
        assertThat(FreePorts.lostBind(new IOException("Connection refused"))).isFalse();
    }

    /** The JDK's own web server, {@code jwebserver}: a real child process that takes its port on the command line. */
    private record WebServer(Process process, int port) implements AutoCloseable {
        static WebServer start(Path dir, int port) throws Exception {
            Path bin = Path.of(System.getProperty("java.home"), "bin", "jwebserver");
            Path log = Files.createTempFile("jwebserver", ".log");
            Process p = new ProcessBuilder(bin.toString(), "-b", "127.0.0.1", "-p", Integer.toString(port),
                    "-d", dir.toAbsolutePath().toString()).redirectErrorStream(true).redirectOutput(log.toFile())
                    .start();
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!Files.readString(log).contains("Serving ")) {
                    if (!p.isAlive() || System.nanoTime() - deadline > 0) {
                        String why = p.isAlive() ? "not serving within 60 s" : "exited with " + p.exitValue();
                        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                        throw new IllegalStateException("jwebserver on " + port + " " + why + ":\n"
                                + Files.readString(log));
                    }
                    p.waitFor(20, TimeUnit.MILLISECONDS);
                }
                return new WebServer(p, port);
            } finally {
                Files.deleteIfExists(log);
            }
        }

        @Override
        public void close() throws InterruptedException {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
