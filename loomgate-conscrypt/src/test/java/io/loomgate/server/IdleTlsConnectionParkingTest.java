package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.loomgate.http2.Http2Settings;
import io.loomgate.testkit.ManualClock;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.TestPki;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import io.loomgate.threads.Watchdog;
import io.loomgate.tls.KeySource;
import io.loomgate.tls.ServerTls;
import io.loomgate.tls.ServerTlsSettings;
import io.loomgate.tls.TlsProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Idle TLS keep-alive connections (the provider's engine driven over the accepted channel) parked in the listener's
 * selector without a thread, as plain ones are: over real TLS handshakes, resumed by the next request with the same
 * TLS session going on, closed by the idle timeout, and many at once; with JSSE and with Conscrypt.
 */
class IdleTlsConnectionParkingTest {
    private static final Duration SHORT_HANDOFF = Duration.ofMillis(20);
    /** Runs of a timing case whose arrangement (not the behaviour) a loaded machine may miss: the last one asserts. */
    private static final int ARRANGEMENT_TRIES = 3;
    private static final ExchangeHandler ECHO = ex -> ex.respond(200, ex.request().target() + "#" + ex.requestIndex());
    /** For HTTP/2: the path and the x-tenant field, which shows whether an HPACK table entry survived a park. */
    private static final ExchangeHandler TENANT = ex ->
            ex.respond(200, ex.request().target() + ":" + ex.request().headers().first("x-tenant"));
    private static TestPki pki;
    private static TestPki.Issued server;
    private static SSLContext client;

    @BeforeAll
    static void certificates() throws Exception {
        pki = TestPki.create("Parking CA");
        server = pki.issue("server", "localhost", "localhost");
        client = pki.clientContext(null);
    }

    private static Listener start(TlsProvider provider, Duration idleTimeout, int maxConnections,
                                  IdleConnectionParkingTest.Counting events) throws Exception {
        assumeThat(provider.unavailableReason()).as(provider + " runs here").isNull();
        ServerTls tls = ServerTls.create(ServerTlsSettings.of(KeySource.pem(server.cert(), server.key()))
                .withProvider(provider));
        ListenerSettings d = RunningListener.settings(Duration.ofSeconds(10), idleTimeout, Duration.ofSeconds(60));
        ListenerSettings s = new ListenerSettings(d.address(), d.port(), d.backlog(), maxConnections,
                d.headerTimeout(), d.idleTimeout(), d.readTimeout(), d.limits());
        return new Listener(s, tls, ECHO, ConnectionExecutors.create(ThreadModel.VIRTUAL, "tls-park-test"), events,
                Watchdog.shared(), null).idleHandoff(SHORT_HANDOFF).start();
    }

    /** A TLS listener offering h2 by ALPN (and HTTP/1.1), answering with {@link #TENANT}. */
    private static Listener startH2(TlsProvider provider, Duration idleTimeout,
                                    IdleConnectionParkingTest.Counting events) throws Exception {
        assumeThat(provider.unavailableReason()).as(provider + " runs here").isNull();
        ServerTls tls = ServerTls.create(ServerTlsSettings.of(KeySource.pem(server.cert(), server.key()))
                .withApplicationProtocols(List.of("h2", "http/1.1")).withProvider(provider));
        ListenerSettings s = RunningListener.settings(Duration.ofSeconds(10), idleTimeout, Duration.ofSeconds(60))
                .withHttp2(Http2Settings.DISABLED.withEnabled(true));
        return new Listener(s, tls, TENANT, ConnectionExecutors.create(ThreadModel.VIRTUAL, "tls-h2-park-test"),
                events, Watchdog.shared(), null).idleHandoff(SHORT_HANDOFF).start();
    }

    @ParameterizedTest
    @EnumSource(TlsProvider.class)
    void anIdleTlsConnectionParksAndItsNextRequestsAreAnsweredOverTheSameSession(TlsProvider provider) throws Exception {
        IdleConnectionParkingTest.Counting events = new IdleConnectionParkingTest.Counting();
        try (Listener l = start(provider, Duration.ofSeconds(60), 100, events);
             RawClient c = RawClient.tls(client, l.port(), "localhost")) {
            c.send("GET /a HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(c.read().bodyText()).isEqualTo("/a#0");
            RunningListener.await("the idle TLS connection parks", () -> l.parkedConnections() == 1);
            for (int i = 1; i <= 3; i++) { // resumed on a new thread, parked again, ...
                c.send("GET /b HTTP/1.1\r\nHost: t\r\n\r\n");
                assertThat(c.read().bodyText()).isEqualTo("/b#" + i);
                long parks = 1 + i;
                // At least one park per request: over TLS a resumed connection whose first read times out on part
                // of a record parks once more (correctly: the engine channel keeps the part), so the count may run ahead.
                RunningListener.await("parked again", () -> l.parks() >= parks && l.parkedConnections() == 1);
            }
            assertThat(l.openConnections()).isEqualTo(1);
            assertThat(events.closed.get()).isZero();
        }
    }

    @Test
    void theIdleTimeoutClosesAParkedTlsConnectionAndGivesItsPermitBack() throws Exception {
        IdleConnectionParkingTest.Counting events = new IdleConnectionParkingTest.Counting();
        try (Listener l = start(TlsProvider.JDK, Duration.ofMillis(1000), 1, events);
             RawClient first = RawClient.tls(client, l.port(), "localhost")) {
            first.send("GET /a HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(first.read().status()).isEqualTo(200);
            RunningListener.await("parked", () -> l.parks() == 1);
            assertThat(first.isClosedByPeer()).as("closed by the idle timeout while parked").isTrue();
            RunningListener.await("closed once", () -> events.closed.get() == 1 && l.openConnections() == 0);
            try (RawClient second = RawClient.tls(client, l.port(), "localhost")) { // the one permit is free
                second.send("GET /b HTTP/1.1\r\nHost: t\r\n\r\n");
                assertThat(second.read().bodyText()).isEqualTo("/b#0");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(TlsProvider.class)
    void manyParkedTlsConnectionsAllResumeWithTheirNextRequest(TlsProvider provider) throws Exception {
        IdleConnectionParkingTest.Counting events = new IdleConnectionParkingTest.Counting();
        int n = 100;
        List<RawClient> clients = new ArrayList<>();
        try (Listener l = start(provider, Duration.ofSeconds(60), 1000, events)) {
            try {
                for (int i = 0; i < n; i++) {
                    RawClient c = RawClient.tls(client, l.port(), "localhost");
                    clients.add(c);
                    c.send("GET /first HTTP/1.1\r\nHost: t\r\n\r\n");
                    assertThat(c.read().bodyText()).isEqualTo("/first#0");
                }
                RunningListener.await("all parked", () -> l.parkedConnections() == n);
                for (RawClient c : clients) { // every request first, then every answer: resumptions overlap
                    c.send("GET /second HTTP/1.1\r\nHost: t\r\n\r\n");
                }
                for (RawClient c : clients) {
                    assertThat(c.read().bodyText()).isEqualTo("/second#1");
                }
                assertThat(l.openConnections()).isEqualTo(n);
            } finally {
                for (RawClient c : clients) {
                    c.close();
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(TlsProvider.class)
    void anIdleHttp2ConnectionOverTlsParksAndResumesWithItsHpackTableIntact(TlsProvider provider) throws Exception {
        IdleConnectionParkingTest.Counting events = new IdleConnectionParkingTest.Counting();
        try (Listener l = startH2(provider, Duration.ofSeconds(60), events); H2cWire c = H2cWire.overTls(client, l.port(), 10_000)) {
            // x-tenant: acme enters the client's and the server's dynamic tables (index 62).
            c.headers(1, H2cWire.get("/a", H2cWire.indexedLiteral("x-tenant", "acme")));
            assertThat(c.body(1)).isEqualTo("/a:acme");
            RunningListener.await("the idle h2 connection parks", () -> l.parkedConnections() == 1);
            for (int i = 1; i <= 3; i++) {
                int stream = 1 + 2 * i;
                c.headers(stream, H2cWire.get("/b", H2cWire.indexed(62))); // decodes only if the table survived
                assertThat(c.body(stream)).isEqualTo("/b:acme");
                long parks = 1 + i;
                // At least one park per request, as above.
                RunningListener.await("parked again", () -> l.parks() >= parks && l.parkedConnections() == 1);
            }
            assertThat(c.holds(H2cWire.GOAWAY)).isFalse();
            assertThat(events.closed.get()).isZero();
        }
    }

    /**
     * IdleH2cConnectionParkingTest's stretched wait over TLS: the listener's read watchdog on a clock the handler moves
     * on by three idle timeouts at a time, twenty times, looking each time, while the reader waits for the client's
     * next frame (its thread as if starved of a carrier). The stream is answered, not cut with GOAWAY "idle timeout"
     * (before: the first look cut it; journal 2026-12-02-s60-handoff).
     */
    @ParameterizedTest
    @EnumSource(TlsProvider.class)
    void anHttp2StreamAnsweredWhileItsReadersWaitIsStretchedPastTheIdleTimeoutIsAnswered(TlsProvider provider)
            throws Exception {
        assumeThat(provider.unavailableReason()).as(provider + " runs here").isNull();
        ManualClock clock = new ManualClock();
        Watchdog reads = Watchdog.driven(clock);
        Duration idle = Duration.ofSeconds(1);
        Duration far = Duration.ofDays(365); // the header and read timeouts: only an idle bound can be cut here
        ExchangeHandler stretching = ex -> {
            for (int i = 0; i < 20; i++) {
                LockSupport.parkNanos(SHORT_HANDOFF.toNanos()); // a hand-off wait of the reader's, about
                clock.advance(idle.multipliedBy(3));
                reads.check();
            }
            ex.respond(200, ex.request().target() + ":stretched");
        };
        ServerTls tls = ServerTls.create(ServerTlsSettings.of(KeySource.pem(server.cert(), server.key()))
                .withApplicationProtocols(List.of("h2", "http/1.1")).withProvider(provider));
        ListenerSettings s = RunningListener.settings(far, idle, far).withHttp2(Http2Settings.DISABLED.withEnabled(true));
        try (Listener l = new Listener(s, tls, stretching, ConnectionExecutors.create(ThreadModel.VIRTUAL,
                "tls-h2-stretch-test"), ConnectionListener.NOOP, reads, null).idleHandoff(SHORT_HANDOFF).start();
             H2cWire c = H2cWire.overTls(client, l.port(), 10_000)) {
            c.headers(1, H2cWire.get("/held", new byte[0]));
            assertThat(c.body(1)).isEqualTo("/held:stretched"); // before: "GOAWAY 0 before stream 1 ended"
            c.headers(3, H2cWire.get("/again", new byte[0])); // and the connection goes on
            assertThat(c.body(3)).isEqualTo("/again:stretched");
        }
    }

    @ParameterizedTest
    @EnumSource(TlsProvider.class)
    void theIdleTimeoutWhileParkedSendsAnEncryptedGoAwayThenCloses(TlsProvider provider) throws Exception {
        for (int attempt = 1; ; attempt++) {
            if (goAwayWhileParked(provider, attempt == ARRANGEMENT_TRIES)) {
                return;
            }
            System.out.printf("%s: the idle timeout ended the connection before it parked (the machine's load): "
                    + "again%n", provider);
        }
    }

    /**
     * One run of the case; false when its arrangement did not hold (the connection never parked) and {@code last} is
     * false. The connection parks one hand-off delay (20 ms) after its stream ends, if its reader thread is back from
     * that wait before the idle timeout (1 s) runs out; at load 13-16 it once was not (session 59, twice in s57-s59:
     * {@code parks() == 1} never came true and the wait gave up after 30 s), and the reader rightly ended the idle
     * connection itself, with a GOAWAY of its own: not the parked connection's GOAWAY, which is what is under test.
     * The wait takes one park or more (never an absolute count, as IdleH2cConnectionParkingTest's parkedAgain says)
     * or the connection's end, whichever comes first.
     */
    private boolean goAwayWhileParked(TlsProvider provider, boolean last) throws Exception {
        IdleConnectionParkingTest.Counting events = new IdleConnectionParkingTest.Counting();
        try (Listener l = startH2(provider, Duration.ofMillis(1000), events); H2cWire c = H2cWire.overTls(client, l.port(), 10_000)) {
            c.headers(1, H2cWire.get("/a", new byte[0]));
            assertThat(c.body(1)).isEqualTo("/a:null");
            // At least once, not exactly: a client descheduled past the hand-off delay between two frames (its
            // SETTINGS ACK after the answer) makes it park twice (load 27, session 59); or, at load, it closes itself
            // at the idle timeout before it parked, and the case runs again.
            RunningListener.await("parked, or ended", () -> l.parks() >= 1 || events.closed.get() == 1);
            if (l.parks() == 0 && !last) {
                return false;
            }
            assertThat(l.parks()).as("parked before the idle timeout").isPositive();
            // The client reads frames through its TLS socket: a GOAWAY written in clear would be a TLS error here.
            c.expectGoAwayThenClose(1);
            RunningListener.await("closed once", () -> events.closed.get() == 1 && l.openConnections() == 0);
        }
        return true;
    }
}
