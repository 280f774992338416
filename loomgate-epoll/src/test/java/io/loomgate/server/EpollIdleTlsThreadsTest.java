package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http2.Http2Settings;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.TestPki;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import io.loomgate.threads.Watchdog;
import io.loomgate.tls.KeySource;
import io.loomgate.tls.ServerTls;
import io.loomgate.tls.ServerTlsSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Idle TLS keep-alive connections on {@code transport: epoll} hold no virtual thread, as plain ones there
 * ({@link EpollIdleThreadsTest}) and TLS ones on the JDK's sockets ({@code IdleTlsConnectionParkingTest}) do: each
 * parks as a readiness callback on the epoll poller with its TLS state in the gateway's engine loop, and resumes on
 * its next request over the same session. Before session 47 a TLS connection on epoll kept its thread (JSSE's socket
 * layered over the epoll socket held its state): the listener had no idle poller, and no connection ever parked.
 * An HTTP/2 connection over TLS that reaches its idle timeout while parked gets an encrypted GOAWAY (one send that
 * never waits, made by the poller) before the close.
 */
// Alone (this module runs some classes side by side, loomgate-epoll/pom.xml): counts this JVM's live virtual threads.
@Isolated
class EpollIdleTlsThreadsTest {
    private static final int HTTP1 = 100;
    private static final int H2 = 30;
    private static TestPki.Issued server;
    private static SSLContext client;

    @BeforeAll
    static void certificates() throws Exception {
        TestPki pki = TestPki.create("Epoll parking CA");
        server = pki.issue("server", "localhost", "localhost");
        client = pki.clientContext(null);
    }

    private static Listener start(Duration idleTimeout, IdleConnectionParkingTest.Counting events) throws Exception {
        ServerTls tls = ServerTls.create(ServerTlsSettings.of(KeySource.pem(server.cert(), server.key()))
                .withApplicationProtocols(List.of("h2", "http/1.1")));
        ListenerSettings s = RunningListener.settings(Duration.ofSeconds(10), idleTimeout, Duration.ofSeconds(60))
                .withHttp2(Http2Settings.DISABLED.withEnabled(true));
        Listener l = new Listener(s, tls, ex -> ex.respond(200, ex.request().target()),
                ConnectionExecutors.create(ThreadModel.VIRTUAL, "epoll-tls-idle"), events, Watchdog.shared(), null)
                .idleHandoff(Duration.ofMillis(20)).transport(Transport.EPOLL).start();
        assertThat(l.transport()).isEqualTo(Transport.EPOLL);
        return l;
    }

    @Test
    void idleTlsConnectionsOnEpollHoldNoThreadAndEachResumesOnItsNextRequest() throws Exception {
        List<RawClient> http1 = new ArrayList<>();
        List<H2cWire> h2 = new ArrayList<>();
        long before = ConnectionExecutors.virtualThreadsAlive();
        try (Listener l = start(Duration.ofSeconds(120), new IdleConnectionParkingTest.Counting())) {
            try {
                for (int i = 0; i < HTTP1; i++) {
                    RawClient c = RawClient.tls(client, l.port(), "localhost", 30_000);
                    http1.add(c);
                    c.send("GET /a HTTP/1.1\r\nHost: t\r\n\r\n");
                    assertThat(c.read().bodyText()).isEqualTo("/a");
                }
                for (int i = 0; i < H2; i++) {
                    H2cWire c = H2cWire.overTls(client, l.port(), 30_000);
                    h2.add(c);
                    c.headers(1, H2cWire.get("/a", new byte[0]));
                    assertThat(c.body(1)).isEqualTo("/a");
                }
                RunningListener.await("every idle TLS connection parked", () -> l.parkedConnections() == HTTP1 + H2);
                // With a thread each they would be HTTP1 + H2 more; a few may be other tests' threads still ending.
                RunningListener.await("no virtual thread held by an idle TLS connection",
                        () -> ConnectionExecutors.virtualThreadsAlive() - before < 10);
                assertThat(l.openConnections()).isEqualTo(HTTP1 + H2);
                for (RawClient c : http1) {
                    c.send("GET /b HTTP/1.1\r\nHost: t\r\n\r\n");
                    assertThat(c.read().bodyText()).as("resumed by its next request").isEqualTo("/b");
                }
                for (H2cWire c : h2) {
                    c.headers(3, H2cWire.get("/b", new byte[0]));
                    assertThat(c.body(3)).as("resumed by its next stream").isEqualTo("/b");
                }
                RunningListener.await("parked again", () -> l.parkedConnections() == HTTP1 + H2);
            } finally {
                for (RawClient c : http1) {
                    close(c);
                }
                for (H2cWire c : h2) {
                    close(c);
                }
            }
        }
    }

    @Test
    void theIdleTimeoutWhileParkedSendsAnEncryptedGoAwayThenCloses() throws Exception {
        IdleConnectionParkingTest.Counting events = new IdleConnectionParkingTest.Counting();
        try (Listener l = start(Duration.ofMillis(1000), events); H2cWire c = H2cWire.overTls(client, l.port(), 30_000)) {
            c.headers(1, H2cWire.get("/a", new byte[0]));
            assertThat(c.body(1)).isEqualTo("/a");
            RunningListener.await("parked", () -> l.parks() >= 1);
            // The client reads frames through its TLS socket: a GOAWAY written in clear would be a TLS error here.
            c.expectGoAwayThenClose(1);
            RunningListener.await("closed once", () -> events.closed.get() == 1 && l.openConnections() == 0);
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
