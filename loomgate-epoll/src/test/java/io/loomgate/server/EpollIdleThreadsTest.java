package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import io.loomgate.threads.Watchdog;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Issue 40: on {@code transport: epoll} idle keep-alive connections, HTTP/1.1 and h2c, hold no virtual thread, as on
 * the JDK's sockets (decision 0004): counted with the gateway's own count of live virtual threads
 * ({@link ConnectionExecutors#virtualThreadsAlive()}, the {@code loomgate_virtual_threads} figure). Before, each kept
 * its thread parked in the poller's readiness wait. Each resumes on its next request.
 */
// Alone (this module runs some classes side by side, loomgate-epoll/pom.xml): counts this JVM's live virtual threads.
@Isolated
class EpollIdleThreadsTest {
    private static final int HTTP1 = 150;
    private static final int H2C = 50;

    @Test
    void idleConnectionsOnEpollHoldNoThreadAndEachResumesOnItsNextRequest() throws Exception {
        ListenerSettings s = RunningListener.settings(Duration.ofSeconds(10), Duration.ofSeconds(120),
                Duration.ofSeconds(60)).withHttp2(io.loomgate.http2.Http2Settings.DISABLED.withEnabled(true));
        List<RawClient> http1 = new ArrayList<>();
        List<H2cWire> h2c = new ArrayList<>();
        long before = ConnectionExecutors.virtualThreadsAlive();
        try (Listener l = new Listener(s, null, ex -> ex.respond(200, ex.request().target()),
                ConnectionExecutors.create(ThreadModel.VIRTUAL, "epoll-idle"), ConnectionListener.NOOP,
                Watchdog.shared(), null).idleHandoff(Duration.ofMillis(20)).transport(Transport.EPOLL).start()) {
            try {
                for (int i = 0; i < HTTP1; i++) {
                    RawClient c = new RawClient(l.port());
                    http1.add(c);
                    c.send("GET /a HTTP/1.1\r\nHost: t\r\n\r\n");
                    assertThat(c.read().bodyText()).isEqualTo("/a");
                }
                for (int i = 0; i < H2C; i++) {
                    H2cWire c = new H2cWire(l.port());
                    h2c.add(c);
                    c.headers(1, H2cWire.get("/a", new byte[0]));
                    assertThat(c.body(1)).isEqualTo("/a");
                }
                RunningListener.await("every idle connection parked",
                        () -> l.parkedConnections() == HTTP1 + H2C);
                // With a thread each they would be HTTP1 + H2C more; a few may be other tests' threads still ending.
                RunningListener.await("no virtual thread held by an idle connection",
                        () -> ConnectionExecutors.virtualThreadsAlive() - before < 10);
                assertThat(l.openConnections()).isEqualTo(HTTP1 + H2C);
                for (RawClient c : http1) {
                    c.send("GET /b HTTP/1.1\r\nHost: t\r\n\r\n");
                    assertThat(c.read().bodyText()).as("resumed by its next request").isEqualTo("/b");
                }
                for (H2cWire c : h2c) {
                    c.headers(3, H2cWire.get("/b", new byte[0]));
                    assertThat(c.body(3)).as("resumed by its next stream").isEqualTo("/b");
                }
                RunningListener.await("parked again", () -> l.parkedConnections() == HTTP1 + H2C);
            } finally {
                for (RawClient c : http1) {
                    close(c);
                }
                for (H2cWire c : h2c) {
                    close(c);
                }
            }
        }
    }

    private static void close(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // the rest still close
        }
    }
}
