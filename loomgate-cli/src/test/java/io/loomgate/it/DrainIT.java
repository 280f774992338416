package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.testkit.JarProcess;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import java.net.ConnectException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SIGTERM: stop accepting, close idle connections, let the request in flight finish, exit 0. */
class DrainIT {

    @Test
    void sigtermLetsInFlightRequestsFinishAndExitsZero(@TempDir Path dir) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Path yaml = dir.resolve("gateway.yaml");
        Files.writeString(yaml, """
                server:
                  address: 127.0.0.1
                  port: 0
                  drain-timeout: 20s
                admin:
                  port: 0
                routes:
                  - id: main
                    uri: ${ORIGIN}
                    predicates: [ "Path=/**" ]
                """);
        try (TestOrigin origin = new TestOrigin();
             JarProcess gw = JarProcess.start(List.of("-Xmx128m"), List.of("serve", "--config", yaml.toString()),
                     Map.of("ORIGIN", origin.uri()))) {
            int port = gw.awaitListening(Duration.ofSeconds(20));
            try (RawClient busy = new RawClient(port); RawClient idleConn = new RawClient(port)) {
                assertThat(idleConn.send("GET /warm HTTP/1.1\r\nHost: h\r\n\r\n").read().status()).isEqualTo(200);
                origin.enqueue(Reply.raw("HTTP/1.1 200 OK", List.of("Content-Length: 9"), "in", "-flight")
                        .gatedBy(release));
                busy.send("GET /slow HTTP/1.1\r\nHost: h\r\n\r\n");
                origin.takeRequest();
                origin.takeRequest(); // /slow reached the origin: it is in flight
                gw.terminate();
                assertThat(idleConn.isClosedByPeer()).isTrue(); // idle keep-alive connections are closed at once
                awaitRefused(port);
                release.countDown();
                RawClient.Response r = busy.read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.bodyText()).isEqualTo("in-flight");
                // Its head left before SIGTERM, so it could not say "Connection: close"; the connection closes after it.
                assertThat(busy.isClosedByPeer()).isTrue();
            }
            assertThat(gw.awaitExit(Duration.ofSeconds(20))).isZero();
            assertThat(gw.output()).contains("draining").contains("drained cleanly");
        }
    }

    /** New connections are refused once the listener stopped accepting (polled with a deadline). */
    private static void awaitRefused(int port) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            try (RawClient probe = new RawClient(port)) {
                Thread.onSpinWait();
            } catch (ConnectException e) {
                return;
            }
        }
        assertThatThrownBy(() -> new RawClient(port).close()).isInstanceOf(ConnectException.class);
    }
}
