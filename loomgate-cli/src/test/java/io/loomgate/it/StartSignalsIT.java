package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.JarProcess;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.TestOrigin;
import java.io.IOException;
import java.net.ConnectException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A signal the moment the gateway's port accepts a connection (the first sign of readiness anyone outside can see,
 * before the admin listener's probe and the "listening" line) finds {@code serve}'s handlers: SIGTERM drains and exits
 * 0, SIGHUP reloads and the gateway goes on serving. The handlers used to be installed after the "listening" line
 * (SIGHUP's just before it, after the listener accepted), so either signal there met the JVM's own handling: exit 143
 * undrained, exit 129 (docs/journal/2026-12-02-s57-startwin.md).
 */
class StartSignalsIT {
    private static final Duration DEADLINE = Duration.ofSeconds(90);

    @Test
    void aSigtermAsSoonAsThePortAcceptsDrainsAndExitsZero(@TempDir Path dir) throws Exception {
        try (TestOrigin origin = new TestOrigin()) {
            Path yaml = config(dir, origin);
            try (JarProcess gw = FreePorts.start(2, ports -> startedAndAccepting(yaml, ports))) {
                gw.terminate();
                assertThat(gw.awaitExit(DEADLINE)).as("exit status; the output:%n%s", gw.output()).isZero();
                assertThat(gw.output()).contains("loomgate listening on").contains("drained cleanly; exiting");
            }
        }
    }

    @Test
    void aSighupAsSoonAsThePortAcceptsReloadsAndTheGatewayServesOn(@TempDir Path dir) throws Exception {
        try (TestOrigin origin = new TestOrigin()) {
            Path yaml = config(dir, origin);
            try (JarProcess gw = FreePorts.start(2, ports -> startedAndAccepting(yaml, ports))) {
                Process kill = new ProcessBuilder("kill", "-HUP", Long.toString(gw.pid())).inheritIO().start();
                assertThat(kill.waitFor()).isZero();
                int port = gw.awaitListening(DEADLINE);
                int admin = gw.adminPort();
                awaitSignalReload(gw, admin);
                try (RawClient client = new RawClient(port)) {
                    assertThat(client.send("GET /x HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n").read()
                            .status()).isEqualTo(200);
                }
                gw.terminate();
                assertThat(gw.awaitExit(DEADLINE)).as("exit status; the output:%n%s", gw.output()).isZero();
                assertThat(gw.output()).contains("drained cleanly; exiting");
            }
        }
    }

    private static Path config(Path dir, TestOrigin origin) throws IOException {
        Path yaml = dir.resolve("gateway.yaml");
        Files.writeString(yaml, """
                server:
                  address: 127.0.0.1
                  drain-timeout: 20s
                admin:
                  address: 127.0.0.1
                routes:
                  - id: origin
                    uri: %s
                    predicates: [ "Path=/**" ]
                """.formatted(origin.uri()));
        return yaml;
    }

    /**
     * Starts the jar on {@code ports} (the gateway's, the admin listener's) and returns once a connection to the
     * gateway's port is accepted (by the kernel: bound and listening), polling every millisecond with a deadline; a
     * start that lost a port is closed and thrown with its output, for {@link FreePorts} to start again.
     */
    private static JarProcess startedAndAccepting(Path yaml, List<Integer> ports) throws Exception {
        JarProcess gw = JarProcess.start(List.of("-Xmx128m"), List.of("serve", "--config", yaml.toString(),
                "--port", ports.get(0).toString(), "--admin-port", ports.get(1).toString(), "--no-watch"), Map.of());
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        try {
            while (System.nanoTime() < deadline) {
                try (RawClient probe = new RawClient(ports.get(0))) {
                    return gw;
                } catch (ConnectException notYet) {
                    if (!gw.isAlive()) {
                        throw new IllegalStateException("the gateway exited before it accepted:\n" + gw.output());
                    }
                    LockSupport.parkNanos(1_000_000);
                }
            }
            throw new IllegalStateException("the gateway's port did not accept within " + DEADLINE + ":\n"
                    + gw.output());
        } catch (Exception | AssertionError e) {
            gw.close();
            throw e;
        }
    }

    /** Polls GET /reload on the admin listener until it reports the SIGHUP's reload. */
    private static void awaitSignalReload(JarProcess gw, int admin) throws Exception {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        String body = "";
        while (System.nanoTime() < deadline) {
            try (RawClient client = new RawClient(admin)) {
                body = client.send("GET /reload HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").read()
                        .bodyText();
            }
            if (body.replace(" ", "").contains("\"trigger\":\"signal\"")) {
                return;
            }
            assertThat(gw.isAlive()).as("the gateway is alive; its output:%n%s", gw.output()).isTrue();
            LockSupport.parkNanos(20_000_000);
        }
        throw new AssertionError("no reload by the signal within " + DEADLINE + "; GET /reload: " + body + "\n"
                + gw.output());
    }
}
