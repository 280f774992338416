package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.JarProcess;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.TestOrigin;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A gateway process with 256 file descriptors and more client connections than fit: its accepts fail with "Too many
 * open files" for seconds. The log says so once for the episode (and once when accepting works again), not once per
 * failed attempt (it was ~96 lines a second), and once the clients close, the gateway serves again without a restart.
 */
class FdLimitIT {
    private static final int NOFILE = 256;

    /**
     * On both transports: epoll's accept4 reports EMFILE itself (EpollServerSocket), and must keep serving too. Each
     * case names its transport on the command line, which the testkit's -Dloomgate.test.transport leaves alone.
     */
    @ParameterizedTest
    @ValueSource(strings = {"jdk", "epoll"})
    void atTheDescriptorLimitAcceptsPauseWithOneLinePerEpisodeAndServingResumes(String transport, @TempDir Path dir)
            throws Exception {
        Path yaml = dir.resolve("gateway.yaml");
        Files.writeString(yaml, """
                server:
                  address: 127.0.0.1
                  port: 0
                  max-connections: 10000
                  backlog: 2048
                admin:
                  port: 0
                routes:
                  - id: main
                    uri: ${ORIGIN}
                    predicates: [ "Path=/**" ]
                """);
        try (TestOrigin origin = new TestOrigin();
             JarProcess gw = JarProcess.startWithFdLimit(NOFILE, List.of("-Xmx128m"),
                     List.of("serve", "--config", yaml.toString(), "--transport", transport),
                     Map.of("ORIGIN", origin.uri()))) {
            int port = gw.awaitListening(Duration.ofSeconds(30));
            assertThat(get(port).status()).isEqualTo(200);
            List<Socket> flood = new ArrayList<>();
            try {
                for (int i = 0; i < NOFILE + 100; i++) { // the kernel completes each handshake into the backlog
                    flood.add(new Socket(InetAddress.getLoopbackAddress(), port));
                }
                awaitOutput(gw, "Too many open files");
                // Hold the limit for a few seconds: at the old 10 ms retry that is hundreds of lines.
                LockSupport.parkNanos(Duration.ofSeconds(4).toNanos());
            } finally {
                for (Socket s : flood) {
                    s.close();
                }
            }
            // The closed connections end, their descriptors come back, and the gateway serves again.
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            int status = -1;
            while (status != 200 && System.nanoTime() - deadline < 0) {
                try {
                    status = get(port).status();
                } catch (IOException e) {
                    LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
                }
            }
            assertThat(status).as("a request after the clients closed; the gateway's log:\n" + gw.output()).isEqualTo(200);
            awaitOutput(gw, "works again after");
            String log = gw.output();
            long lines = log.lines().filter(l -> l.contains("Too many open files")).count();
            long episodes = log.lines().filter(l -> l.contains("pausing accepts")).count();
            assertThat(episodes).as("episodes in:\n" + log).isBetween(1L, 3L);
            assertThat(lines).as("lines naming the error, one per episode:\n" + log).isEqualTo(episodes);
        }
    }

    /**
     * A crowd that is already connecting when the gateway starts (a restart behind a busy load balancer): the kernel
     * completes their handshakes into the backlog from the moment the port listens. Before the gateway accepted only
     * once everything else was up, the crowd took every descriptor while the admin listener, the file watch or JFR
     * still needed one, and the start failed ("loomgate: Too many open files") or JFR shut the JVM down.
     */
    @ParameterizedTest
    @ValueSource(strings = {"jdk", "epoll"})
    void aCrowdInTheBacklogAtStartTakesNoDescriptorTheStartNeeds(String transport, @TempDir Path dir)
            throws Exception {
        // The crowd connects before the start line names the port, so the port is probed; a port lost to another
        // socket before the gateway bound it fails the start with "Address already in use" (the gateway's log is in
        // every failure below), and that, only that, is started again on other ports.
        FreePorts.start(2, ports -> {
            crowdAtStart(transport, dir, ports.get(0), ports.get(1));
            return null;
        });
    }

    private static void crowdAtStart(String transport, Path dir, int port, int adminPort) throws Exception {
        Path yaml = dir.resolve("gateway.yaml");
        Files.writeString(yaml, """
                server:
                  address: 127.0.0.1
                  port: %d
                  max-connections: 10000
                  backlog: 2048
                admin:
                  port: %d
                routes:
                  - id: main
                    uri: ${ORIGIN}
                    predicates: [ "Path=/**" ]
                """.formatted(port, adminPort));
        try (TestOrigin origin = new TestOrigin();
             JarProcess gw = JarProcess.startWithFdLimit(NOFILE, List.of("-Xmx128m"),
                     List.of("serve", "--config", yaml.toString(), "--transport", transport),
                     Map.of("ORIGIN", origin.uri()))) {
            List<Socket> crowd = new ArrayList<>();
            try {
                crowd.add(connectOnceListening(port, gw));
                for (int i = 0; i < NOFILE + 100; i++) {
                    crowd.add(new Socket(InetAddress.getLoopbackAddress(), port));
                }
                awaitOutput(gw, "Too many open files"); // the gateway accepted until it ran out
                LockSupport.parkNanos(Duration.ofSeconds(2).toNanos());
            } finally {
                for (Socket s : crowd) {
                    s.close();
                }
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            int status = -1;
            while (status != 200 && System.nanoTime() - deadline < 0) {
                assertThat(gw.isAlive()).as("the gateway runs; its log:\n" + gw.output()).isTrue();
                try {
                    status = get(port).status();
                } catch (IOException e) {
                    LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
                }
            }
            assertThat(status).as("a request after the crowd left; the gateway's log:\n" + gw.output())
                    .isEqualTo(200);
            assertThat(gw.output()).contains("listening on").doesNotContain("JFR").doesNotContain("Could not");
            try (RawClient c = new RawClient(adminPort)) {
                c.socket().setSoTimeout(5_000);
                assertThat(c.send("GET /health/live HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n").read()
                        .status()).as("the admin listener").isEqualTo(200);
            }
        }
    }

    private static Socket connectOnceListening(int port, JarProcess gw) throws IOException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try {
                return new Socket(InetAddress.getLoopbackAddress(), port);
            } catch (IOException e) {
                assertThat(gw.isAlive()).as("the gateway runs; its log:\n" + gw.output()).isTrue();
                assertThat(System.nanoTime() - deadline).as("port " + port + " listening").isNegative();
                LockSupport.parkNanos(Duration.ofMillis(2).toNanos());
            }
        }
    }

    private static RawClient.Response get(int port) throws IOException {
        try (RawClient c = new RawClient(port)) {
            c.socket().setSoTimeout(5_000);
            return c.send("GET /x HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n").read();
        }
    }

    private static void awaitOutput(JarProcess gw, String text) throws IOException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!gw.output().contains(text)) {
            assertThat(gw.isAlive()).as("the gateway runs; its log:\n" + gw.output()).isTrue();
            assertThat(System.nanoTime() - deadline).as("'" + text + "' in the log:\n" + gw.output()).isNegative();
            LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
        }
    }
}
