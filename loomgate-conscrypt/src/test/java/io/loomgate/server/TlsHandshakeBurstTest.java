package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.loomgate.http2.Http2Settings;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.TestPki;
import io.loomgate.threads.Watchdog;
import io.loomgate.tls.KeySource;
import io.loomgate.tls.ServerTls;
import io.loomgate.tls.ServerTlsSettings;
import io.loomgate.tls.TlsProvider;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two hundred TLS handshakes at once (stop 38: {@code h2load -c200} over TLS against a gateway at a load average of
 * 25 did not end): each one is answered (the handshake completes and the connection is served) or closed, none is
 * left hanging, and the gateway goes on serving new clients afterwards; a handshake whose thread could not start it
 * within the handshake timeout ({@code header-timeout}) of its accept is closed within that timeout. With JSSE and
 * with Conscrypt; half the clients ask for h2 by ALPN, half for http/1.1.
 *
 * <p>The loaded case: on a busy machine a connection's virtual thread may wait for a carrier far longer than the
 * handshake timeout (200 handshakes of a few milliseconds of CPU each, queued behind everything else the process
 * runs, on two cores shared with other processes). Here the listener's executor starts each connection's thread only
 * after a gate opens, which stands for that wait without burning the shared machine's CPU: the handshake timeout must
 * still close every one of them in time (the watchdog that enforces it is a platform thread), and the threads that
 * run late must find their connections already closed instead of doing the handshake's work for clients given up on.
 */
class TlsHandshakeBurstTest {
    private static final int CLIENTS = 200;
    /** The client's own limit, past every handshake timeout here: a handshake still open by then was left hanging. */
    private static final int CLIENT_TIMEOUT_MILLIS = 120_000;
    /** Generous room over the handshake timeout: the watchdog's tick, 200 closes, a loaded machine's scheduling. */
    private static final Duration SLACK = Duration.ofSeconds(4);
    private static final ExchangeHandler ECHO = ex -> ex.respond(200, ex.request().target());
    private static TestPki pki;
    private static TestPki.Issued server;
    private static SSLContext client;

    enum Kind { COMPLETED, CLOSED, HUNG }

    /** How one client's handshake ended, and after how long from its connect. */
    record Outcome(int client, String alpn, Kind kind, long nanos, boolean served, String detail) {
        Duration took() {
            return Duration.ofNanos(nanos);
        }
    }

    @BeforeAll
    static void certificates() throws Exception {
        pki = TestPki.create("Burst CA");
        server = pki.issue("server", "localhost", "localhost");
        client = pki.clientContext(null);
    }

    @ParameterizedTest
    @EnumSource(TlsProvider.class)
    void handshakesWhoseThreadsCannotStartThemInTimeAreClosedWithinTheHandshakeTimeout(TlsProvider provider)
            throws Exception {
        Duration handshakeTimeout = Duration.ofSeconds(1);
        // Held at most this long: well past the timeout and the slack, so a handshake answered only when its thread
        // finally ran is seen as late, and the test does not wait for the clients' own limit when it fails.
        Duration held = Duration.ofSeconds(8);
        CountDownLatch gate = new CountDownLatch(1);
        ExecutorService late = Executors.newThreadPerTaskExecutor(task -> Thread.ofVirtual().name("late-conn")
                .unstarted(() -> {
                    awaitQuietly(gate, held.plusSeconds(60));
                    task.run();
                }));
        Map<ConnectionListener.HandshakeFailure, AtomicInteger> failures = new ConcurrentHashMap<>();
        ConnectionListener counting = new ConnectionListener() {
            @Override
            public void tlsHandshakeFailed(InetSocketAddress remote, HandshakeFailure why) {
                failures.computeIfAbsent(why, w -> new AtomicInteger()).incrementAndGet();
            }
        };
        try (Listener l = start(provider, handshakeTimeout, late, counting)) {
            List<Outcome> outcomes = burst(l.port(), () -> gate.countDown(), held);
            gate.countDown();
            Duration bound = handshakeTimeout.plus(SLACK);
            assertThat(outcomes).hasSize(CLIENTS);
            assertThat(outcomes.stream().filter(o -> o.kind() == Kind.HUNG || o.took().compareTo(bound) > 0))
                    .as("handshakes neither answered nor closed within %s of their connect: %s", bound,
                            summary(outcomes))
                    .isEmpty();
            // No thread could run within the timeout: every one was closed, none answered after it.
            assertThat(outcomes).allMatch(o -> o.kind() == Kind.CLOSED, "closed: " + summary(outcomes));
            RunningListener.await("every connection ended, its permit back", () -> l.openConnections() == 0);
            // Each counted once, as not started (the metric's reason), none as failed or timed out by its late thread.
            assertThat(failures).containsOnlyKeys(ConnectionListener.HandshakeFailure.NOT_STARTED);
            assertThat(failures.get(ConnectionListener.HandshakeFailure.NOT_STARTED)).hasValue(CLIENTS);
            assertServesNewClients(l.port());
        } finally {
            gate.countDown();
        }
    }

    @ParameterizedTest
    @EnumSource(TlsProvider.class)
    void handshakesAtOnceAreEachAnsweredAndServed(TlsProvider provider) throws Exception {
        // Generous: 200 real handshakes at once on a loaded two-core machine, the first ones with a cold JIT (JSSE's
        // took up to 38 s from the first connect to the last answer at a load average of 28).
        Duration handshakeTimeout = Duration.ofSeconds(60);
        try (Listener l = start(provider, handshakeTimeout,
                Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("burst-conn").factory()),
                ConnectionListener.NOOP)) {
            List<Outcome> outcomes = burst(l.port(), () -> { }, Duration.ZERO);
            assertThat(outcomes).hasSize(CLIENTS);
            assertThat(outcomes).as("every handshake answered and its connection served: %s", summary(outcomes))
                    .allMatch(o -> o.kind() == Kind.COMPLETED && o.served());
            assertServesNewClients(l.port());
        }
    }

    /** A TLS listener offering h2 and http/1.1 by ALPN, its connections run on {@code executor}. */
    private static Listener start(TlsProvider provider, Duration handshakeTimeout, ExecutorService executor,
                                  ConnectionListener events) throws Exception {
        assumeThat(provider.unavailableReason()).as(provider + " runs here").isNull();
        ServerTls tls = ServerTls.create(ServerTlsSettings.of(KeySource.pem(server.cert(), server.key()))
                .withApplicationProtocols(List.of("h2", "http/1.1")).withProvider(provider));
        ListenerSettings s = RunningListener.settings(handshakeTimeout, Duration.ofSeconds(60), Duration.ofSeconds(60))
                .withHttp2(Http2Settings.DISABLED.withEnabled(true));
        return new Listener(s, tls, ECHO, executor, events, Watchdog.shared(), null).start();
    }

    /**
     * {@link #CLIENTS} clients connect at once, each then handshakes and, if that completes, sends one request by the
     * protocol ALPN agreed on. Runs {@code release} once every client has its outcome, or after {@code holdAtMost}
     * (when not zero) if some have none yet.
     */
    private static List<Outcome> burst(int port, Runnable release, Duration holdAtMost) throws Exception {
        ConcurrentLinkedQueue<Outcome> outcomes = new ConcurrentLinkedQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(CLIENTS);
        for (int i = 0; i < CLIENTS; i++) {
            int id = i;
            String alpn = i % 2 == 0 ? "h2" : "http/1.1";
            Thread.ofVirtual().name("burst-client-" + i).start(() -> {
                try {
                    awaitQuietly(start, Duration.ofSeconds(60));
                    outcomes.add(handshakeAndRequest(port, id, alpn));
                } finally {
                    done.countDown();
                }
            });
        }
        start.countDown();
        if (!holdAtMost.isZero()) {
            done.await(holdAtMost.toMillis(), TimeUnit.MILLISECONDS);
            release.run();
        }
        assertThat(done.await(CLIENT_TIMEOUT_MILLIS + 60_000L, TimeUnit.MILLISECONDS)).as("every client ended").isTrue();
        return List.copyOf(outcomes);
    }

    private static Outcome handshakeAndRequest(int port, int id, String alpn) {
        long t0 = System.nanoTime();
        SSLSocket s = null;
        try {
            s = (SSLSocket) client.getSocketFactory().createSocket();
            SSLParameters p = s.getSSLParameters();
            p.setApplicationProtocols(new String[] {alpn});
            p.setServerNames(List.of(new SNIHostName("localhost")));
            s.setSSLParameters(p);
            s.setSoTimeout(CLIENT_TIMEOUT_MILLIS);
            s.connect(new InetSocketAddress("127.0.0.1", port), CLIENT_TIMEOUT_MILLIS);
            s.startHandshake();
            long took = System.nanoTime() - t0;
            boolean served = alpn.equals(s.getApplicationProtocol()) && served(s, id, alpn);
            return new Outcome(id, alpn, Kind.COMPLETED, took, served, s.getApplicationProtocol());
        } catch (SocketTimeoutException e) {
            return new Outcome(id, alpn, Kind.HUNG, System.nanoTime() - t0, false, e.toString());
        } catch (IOException e) {
            return new Outcome(id, alpn, Kind.CLOSED, System.nanoTime() - t0, false, e.toString());
        } catch (Exception | AssertionError e) { // the request after the handshake (H2cWire fails with an Error)
            return new Outcome(id, alpn, Kind.CLOSED, System.nanoTime() - t0, false, "after the handshake: " + e);
        } finally {
            closeQuietly(s);
        }
    }

    /** One request over the handshaken socket, by the protocol agreed: answered with its path. */
    private static boolean served(SSLSocket s, int id, String alpn) throws Exception {
        String path = "/burst/" + id;
        if (alpn.equals("h2")) {
            H2cWire h2 = new H2cWire(s);
            h2.headers(1, H2cWire.get(path, new byte[0]));
            return h2.body(1).equals(path);
        }
        RawClient.Response r = new RawClient(s).get(path);
        return r.status() == 200 && r.bodyText().equals(path);
    }

    /** After the burst, a new client of each protocol is answered: the gateway went on serving. */
    private static void assertServesNewClients(int port) {
        for (String alpn : List.of("h2", "http/1.1")) {
            Outcome o = handshakeAndRequest(port, -1, alpn);
            assertThat(o.kind()).as("a new %s client after the burst: %s", alpn, o).isEqualTo(Kind.COMPLETED);
            assertThat(o.served()).as("a new %s client after the burst is served: %s", alpn, o).isTrue();
        }
    }

    /** Counts by outcome, with the slowest time and an example of each, for the failure message. */
    private static String summary(List<Outcome> outcomes) {
        Map<Kind, List<Outcome>> byKind = outcomes.stream().collect(Collectors.groupingBy(Outcome::kind));
        return byKind.entrySet().stream().map(e -> {
            List<Outcome> os = e.getValue();
            Duration slowest = os.stream().map(Outcome::took).max(Duration::compareTo).orElseThrow();
            Duration fastest = os.stream().map(Outcome::took).min(Duration::compareTo).orElseThrow();
            long served = os.stream().filter(Outcome::served).count();
            return os.size() + " " + e.getKey() + " (" + fastest.toMillis() + "-" + slowest.toMillis() + " ms, "
                    + served + " served; e.g. " + os.getFirst().detail() + ")";
        }).collect(Collectors.joining(", "));
    }

    private static void awaitQuietly(CountDownLatch latch, Duration atMost) {
        try {
            latch.await(atMost.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(SSLSocket s) {
        if (s == null) {
            return;
        }
        try {
            s.close();
        } catch (IOException e) {
            // the test's client, ending
        }
    }
}
