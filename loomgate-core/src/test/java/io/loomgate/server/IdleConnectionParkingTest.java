package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.TestPki;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import io.loomgate.threads.Watchdog;
import io.loomgate.tls.KeySource;
import io.loomgate.tls.ServerTls;
import io.loomgate.tls.ServerTlsSettings;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;

/**
 * Idle keep-alive connections parked in the listener's idle poller without a thread, on real sockets: resumed by the
 * next request, closed by the idle timeout, by the client and by drain, with the permit and the open-connection
 * count given back exactly once.
 */
class IdleConnectionParkingTest {
    private static final Duration SHORT_HANDOFF = Duration.ofMillis(20);
    private static final ExchangeHandler ECHO = ex -> ex.respond(200, ex.request().target() + "#" + ex.requestIndex());

    /** Counts the connection events the metrics see. */
    static class Counting implements ConnectionListener {
        final AtomicInteger opened = new AtomicInteger();
        final AtomicInteger closed = new AtomicInteger();

        @Override
        public void connectionOpened(InetSocketAddress remote) {
            opened.incrementAndGet();
        }

        @Override
        public void connectionClosed(InetSocketAddress remote, int requests) {
            closed.incrementAndGet();
        }
    }

    /** The listener's transport: the JDK's sockets here; loomgate-epoll runs these tests again on epoll. */
    Transport transport() {
        return Transport.JDK;
    }

    Listener start(ListenerSettings settings, ConnectionListener events) throws IOException {
        return new Listener(settings, null, ECHO, ConnectionExecutors.create(ThreadModel.VIRTUAL, "park-test"),
                events, Watchdog.shared(), null).idleHandoff(SHORT_HANDOFF).transport(transport()).start();
    }

    private static ListenerSettings settings(Duration idleTimeout, int maxConnections) {
        ListenerSettings d = RunningListener.settings(Duration.ofSeconds(10), idleTimeout, Duration.ofSeconds(60));
        return new ListenerSettings(d.address(), d.port(), d.backlog(), maxConnections, d.headerTimeout(),
                d.idleTimeout(), d.readTimeout(), d.limits());
    }

    @Test
    void aConnectionIdleLongerThanTheHandOffIsParkedAndItsNextRequestIsAnsweredOnANewThread() throws Exception {
        Counting events = new Counting();
        try (Listener l = start(settings(Duration.ofSeconds(60), 100), events);
             RawClient client = new RawClient(l.port())) {
            client.send("GET /a HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(client.read().bodyText()).isEqualTo("/a#0");
            RunningListener.await("the idle connection parks", () -> l.parkedConnections() == 1);
            for (int i = 1; i <= 3; i++) { // resumed, parked again, resumed...
                client.send("GET /b HTTP/1.1\r\nHost: t\r\n\r\n");
                assertThat(client.read().bodyText()).isEqualTo("/b#" + i);
                long parks = 1 + i;
                RunningListener.await("parked again", () -> l.parks() == parks && l.parkedConnections() == 1);
            }
            assertThat(l.openConnections()).isEqualTo(1);
            assertThat(events.closed.get()).isZero();
        }
    }

    @Test
    void theIdleTimeoutClosesAParkedConnectionAndGivesItsPermitBack() throws Exception {
        Counting events = new Counting();
        // One permit: a second client is accepted only once the first connection's permit came back.
        try (Listener l = start(settings(Duration.ofMillis(1000), 1), events);
             RawClient first = new RawClient(l.port())) {
            first.send("GET /a HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(first.read().status()).isEqualTo(200);
            RunningListener.await("parked", () -> l.parks() == 1);
            assertThat(first.isClosedByPeer()).as("closed by the idle timeout while parked").isTrue();
            RunningListener.await("closed once", () -> events.closed.get() == 1 && l.openConnections() == 0);
            assertThat(l.parkedConnections()).isZero();
            try (RawClient second = new RawClient(l.port())) {
                second.send("GET /b HTTP/1.1\r\nHost: t\r\n\r\n");
                assertThat(second.read().bodyText()).isEqualTo("/b#0");
            }
            RunningListener.await("second closed", () -> events.closed.get() == 2);
            assertThat(events.opened.get()).isEqualTo(2);
        }
    }

    @Test
    void aClientClosingWhileParkedFreesThePermitAndIsCountedOnce() throws Exception {
        Counting events = new Counting();
        try (Listener l = start(settings(Duration.ofSeconds(60), 1), events)) {
            try (RawClient first = new RawClient(l.port())) {
                first.send("GET /a HTTP/1.1\r\nHost: t\r\n\r\n");
                assertThat(first.read().status()).isEqualTo(200);
                RunningListener.await("parked", () -> l.parkedConnections() == 1);
            } // FIN while parked
            RunningListener.await("the close is seen", () -> l.openConnections() == 0);
            assertThat(l.parkedConnections()).isZero();
            try (RawClient second = new RawClient(l.port())) { // the one permit is free again
                second.send("GET /b HTTP/1.1\r\nHost: t\r\n\r\n");
                assertThat(second.read().bodyText()).isEqualTo("/b#0");
            }
            RunningListener.await("both closed", () -> events.closed.get() == 2);
            assertThat(events.opened.get()).isEqualTo(2);
        }
    }

    @Test
    void drainClosesParkedConnectionsAtOnce() throws Exception {
        Counting events = new Counting();
        Listener l = start(settings(Duration.ofSeconds(60), 100), events);
        List<RawClient> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 20; i++) {
                RawClient c = new RawClient(l.port());
                clients.add(c);
                c.send("GET /a HTTP/1.1\r\nHost: t\r\n\r\n");
                assertThat(c.read().status()).isEqualTo(200);
            }
            RunningListener.await("all parked", () -> l.parkedConnections() == 20);
            CompletableFuture<Boolean> drained = CompletableFuture.supplyAsync(() -> {
                try {
                    return l.drain(Duration.ofSeconds(60));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            for (RawClient c : clients) {
                assertThat(c.isClosedByPeer()).isTrue();
            }
            assertThat(drained.get(30, TimeUnit.SECONDS)).as("nothing was busy").isTrue();
            assertThat(l.openConnections()).isZero();
            assertThat(events.closed.get()).isEqualTo(20);
        } finally {
            for (RawClient c : clients) {
                c.close();
            }
            l.close();
        }
    }

    @Test
    void closingTheListenerEndsParkedConnectionsOnceEach() throws Exception {
        Counting events = new Counting();
        Listener l = start(settings(Duration.ofSeconds(60), 100), events);
        try (RawClient c = new RawClient(l.port())) {
            c.send("GET /a HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(200);
            RunningListener.await("parked", () -> l.parkedConnections() == 1);
            l.close();
            assertThat(c.isClosedByPeer()).isTrue();
            assertThat(l.openConnections()).isZero();
            assertThat(events.closed.get()).isEqualTo(1);
        }
    }

    @Test
    void pipelinedRequestsAreServedWithoutParkingInBetween() throws Exception {
        try (Listener l = start(settings(Duration.ofSeconds(60), 100), ConnectionListener.NOOP);
             RawClient client = new RawClient(l.port())) {
            client.send("GET /1 HTTP/1.1\r\nHost: t\r\n\r\nGET /2 HTTP/1.1\r\nHost: t\r\n\r\n"
                    + "POST /3 HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabcGET /4 HTTP/1.1\r\nHost: t\r\n\r\n");
            for (int i = 1; i <= 4; i++) {
                assertThat(client.read().bodyText()).isEqualTo("/" + i + "#" + (i - 1));
            }
            RunningListener.await("parked once idle", () -> l.parkedConnections() == 1);
            client.send("GET /5 HTTP/1.1\r\nHost: t\r\n\r\nGET /6 HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(client.read().bodyText()).isEqualTo("/5#4");
            assertThat(client.read().bodyText()).isEqualTo("/6#5");
        }
    }

    @Test
    void aRequestHeadSplitAcrossTheParkStillGetsItsHeaderDeadline() throws Exception {
        ListenerSettings d = settings(Duration.ofSeconds(60), 100);
        ListenerSettings s = new ListenerSettings(d.address(), d.port(), d.backlog(), d.maxConnections(),
                Duration.ofMillis(500), d.idleTimeout(), d.readTimeout(), d.limits());
        try (Listener l = start(s, ConnectionListener.NOOP); RawClient client = new RawClient(l.port())) {
            client.send("GET /a HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(client.read().status()).isEqualTo(200);
            RunningListener.await("parked", () -> l.parkedConnections() == 1);
            client.send("GET /slow HTTP/1.1\r\n"); // resumes the connection; the rest never comes
            assertThat(client.read().status()).as("the head's deadline holds after a resume").isEqualTo(408);
        }
    }

    @Test
    void requestsArrivingAroundTheHandOffAreAllAnswered() throws Exception {
        // Races on purpose: each client's next request comes between 0 and 3 hand-off delays after its last
        // response, so some arrive while the thread still waits, some as it parks, some while parked.
        Counting events = new Counting();
        int clients = 100;
        int rounds = 4;
        try (Listener l = start(settings(Duration.ofSeconds(60), clients), events);
             java.util.concurrent.ExecutorService vt = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            List<java.util.concurrent.Future<Integer>> answered = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                answered.add(vt.submit(() -> {
                    int ok = 0;
                    try (RawClient c = new RawClient(l.port())) {
                        c.socket().setSoTimeout(60_000);
                        for (int r = 0; r < rounds; r++) {
                            java.util.concurrent.locks.LockSupport.parkNanos(java.util.concurrent.ThreadLocalRandom
                                    .current().nextLong(3 * SHORT_HANDOFF.toNanos()));
                            c.send("GET /r HTTP/1.1\r\nHost: t\r\n\r\n");
                            if (c.read().bodyText().equals("/r#" + r)) {
                                ok++;
                            }
                        }
                    }
                    return ok;
                }));
            }
            int total = 0;
            for (var f : answered) {
                total += f.get(120, TimeUnit.SECONDS);
            }
            assertThat(total).isEqualTo(clients * rounds);
            RunningListener.await("all closed once", () -> events.closed.get() == clients);
            assertThat(l.openConnections()).isZero();
            assertThat(l.parks()).as("some waits did park").isPositive();
        }
    }

    @Test
    void newConnectionsBeyondTheHandOffPermitsParkAtOnceAndAreResumedByTheirNextRequest() throws Exception {
        // A hand-off far longer than the test: only connections without a permit can park while it runs.
        Listener l = new Listener(settings(Duration.ofSeconds(300), 100), null, ECHO,
                ConnectionExecutors.create(ThreadModel.VIRTUAL, "park-test"), new Counting(), Watchdog.shared(), null)
                .idleHandoff(Duration.ofSeconds(120)).newConnectionHandoffs(2).transport(transport()).start();
        List<RawClient> clients = new ArrayList<>();
        try (l) {
            for (int i = 0; i < 5; i++) {
                RawClient c = new RawClient(l.port());
                clients.add(c);
                c.send("GET /first HTTP/1.1\r\nHost: t\r\n\r\n");
                assertThat(c.read().bodyText()).isEqualTo("/first#0");
            }
            // Two wait on their threads (the permits), three park without waiting for the hand-off delay.
            RunningListener.await("three parked at once", () -> l.parkedConnections() == 3);
            assertThat(l.parks()).isEqualTo(3);
            for (RawClient c : clients) {
                c.send("GET /next HTTP/1.1\r\nHost: t\r\n\r\n");
                assertThat(c.read().bodyText()).isEqualTo("/next#1");
            }
            // Resumed, and not parked again: a resumed connection's waits need no permit.
            RunningListener.await("all resumed", () -> l.parkedConnections() == 0);
            assertThat(l.parks()).isEqualTo(3);
            assertThat(l.openConnections()).isEqualTo(5);
        } finally {
            for (RawClient c : clients) {
                c.close();
            }
        }
    }

    @Test
    void aBusyConnectionWaitsOnItsThreadAndItsIdleTimeoutStillClosesIt() throws Exception {
        Counting events = new Counting();
        // A hand-off delay of 2 s: the second request, sent at once, comes within it, which marks the connection
        // busy; its next wait is the untimed one under the read watchdog, closed by the 3 s idle timeout.
        Listener l = new Listener(settings(Duration.ofSeconds(3), 100), null, ECHO,
                ConnectionExecutors.create(ThreadModel.VIRTUAL, "park-test"), events, Watchdog.shared(), null)
                .idleHandoff(Duration.ofSeconds(2)).transport(transport()).start();
        try (l; RawClient client = new RawClient(l.port())) {
            client.send("GET /a HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(client.read().bodyText()).isEqualTo("/a#0");
            client.send("GET /b HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(client.read().bodyText()).isEqualTo("/b#1");
            assertThat(client.isClosedByPeer()).as("closed by the idle timeout").isTrue();
            RunningListener.await("closed once", () -> events.closed.get() == 1 && l.openConnections() == 0);
            assertThat(l.parkedConnections()).isZero();
        }
    }

    @Test
    void thePlatformThreadModelKeepsItsThreadWhileIdle() throws Exception {
        Listener l = new Listener(settings(Duration.ofSeconds(60), 100), null, ECHO,
                ConnectionExecutors.create(new ThreadModel.Platform(4), "park-test-platform"),
                ConnectionListener.NOOP, Watchdog.shared(), null).idleHandoff(SHORT_HANDOFF).transport(transport())
                .start();
        try (l; RawClient client = new RawClient(l.port())) {
            client.send("GET /a HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(client.read().status()).isEqualTo(200);
            // Nothing to poll for: the connection must never park. A second request after several hand-off delays.
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
            while (System.nanoTime() - until < 0) {
                assertThat(l.parkedConnections()).isZero();
                Thread.onSpinWait();
            }
            client.send("GET /b HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(client.read().bodyText()).isEqualTo("/b#1");
        }
    }
    /**
     * In a pool of platform threads, a connection's wait for its first request counts from its accept, not from when
     * a thread took it: connections that send nothing, five times the pool, each held a thread for a whole idle
     * timeout in turn before (five rounds of 1 s, the well-behaved client queued behind them answered after 5 s); now
     * those whose second ran out in the queue are closed as soon as a thread takes them, and the client is answered
     * after about one round. A request sent while queued is still read (the client's own).
     */
    @Test
    void connectionsQueuedForAPlatformThreadAreTimedFromTheirAccept() throws Exception {
        Listener l = new Listener(settings(Duration.ofSeconds(1), 100), null, ECHO,
                ConnectionExecutors.create(new ThreadModel.Platform(2), "park-test-queued"),
                ConnectionListener.NOOP, Watchdog.shared(), null).idleHandoff(SHORT_HANDOFF).transport(transport())
                .start();
        List<java.net.Socket> idle = new ArrayList<>();
        try (l) {
            for (int i = 0; i < 10; i++) {
                idle.add(new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), l.port()));
            }
            long t0 = System.nanoTime();
            try (RawClient client = new RawClient(l.port())) {
                client.socket().setSoTimeout(30_000);
                client.send("GET /a HTTP/1.1\r\nHost: t\r\n\r\n");
                assertThat(client.read().bodyText()).isEqualTo("/a#0");
            }
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertThat(ms).as("ms until the client queued behind 10 idle connections on 2 threads was answered "
                    + "(idle-timeout 1 s; 5 rounds of it before)").isLessThan(3000);
        } finally {
            for (java.net.Socket s : idle) {
                s.close();
            }
        }
    }

    /**
     * hostile8's open finding: on a pool of platform threads a silent TLS client (a TCP connect, no ClientHello) took
     * a pool thread for its handshake's timeout, and a well-behaved client queued behind such connections reached its
     * handshake's start deadline (from its accept) before a thread was free: it was reset. Here two silent
     * connections hold both threads of platform:2 (before the fix) until 1.5 s after two more and the client arrive;
     * the next two then take the threads for another header timeout, past the client's start deadline (3 s from its
     * accept): it was cut at 3 s. Now silent connections wait in the idle poller without a thread, the client's
     * handshake runs at once, and the silent ones still end at their deadline from the accept, counted as timed out
     * (not as "not started", which says the gateway was overloaded), each opened and closed once.
     */
    @Test
    void silentTlsConnectionsHoldNoThreadOfAPlatformPool() throws Exception {
        TestPki pki = TestPki.create("Platform pool CA");
        TestPki.Issued cert = pki.issue("server", "localhost", "localhost");
        SSLContext clientContext = pki.clientContext(null);
        ServerTls tls = ServerTls.create(ServerTlsSettings.of(KeySource.pem(cert.cert(), cert.key())));
        TlsCounting events = new TlsCounting();
        Listener l = new Listener(RunningListener.settings(Duration.ofSeconds(3), Duration.ofSeconds(60),
                Duration.ofSeconds(60)), tls, ECHO,
                ConnectionExecutors.create(new ThreadModel.Platform(2), "park-test-tls"), events,
                Watchdog.shared(), null).idleHandoff(SHORT_HANDOFF).transport(transport()).start();
        List<java.net.Socket> silent = new ArrayList<>();
        try (l) {
            for (int i = 0; i < 2; i++) {
                silent.add(new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), l.port()));
            }
            // The scenario's shape, not a wait for readiness: the first two are half their timeout old when the
            // others come, so (before the fix) the next two took the threads while the client's deadline ran.
            Thread.sleep(1500);
            for (int i = 0; i < 2; i++) {
                silent.add(new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), l.port()));
            }
            try (RawClient client = RawClient.tls(clientContext, l.port(), "localhost", 30_000)) {
                assertThat(client.get("/tls").bodyText()).isEqualTo("/tls#0");
            }
            RunningListener.await("the first two silent connections time out",
                    () -> events.timedOut.get() == 2);
            for (java.net.Socket s : silent) {
                s.close(); // the last two leave before their deadline: a FIN while parked, their handshake fails
            }
            RunningListener.await("every connection ended once", () -> events.closed.get() == 5);
            assertThat(events.opened.get()).isEqualTo(5);
            assertThat(events.notStarted.get()).as("silent clients are not an overload").isZero();
            assertThat(l.openConnections()).isZero();
        } finally {
            for (java.net.Socket s : silent) {
                s.close();
            }
        }
    }

    /**
     * session 60 (shed): a client whose connection waited for a pool thread longer than idle-timeout from its accept
     * still has its idle-timeout for its first request once it has spoken. Each cell holds every thread of the pool
     * with a request whose handler waits, connects the client meanwhile and lets its accept grow older than
     * idle-timeout (1 s) before the threads are freed. Over TLS the client's handshake then runs (started within
     * header-timeout of the accept, so not cut), and the client sends its request 100 ms after it: before the fix the
     * first wait was timed from the accept, a millisecond once that had run out, and the connection was closed with
     * no answer and no count (the client saw EOF). Plain, the client's request came at once and waited in the idle
     * poller and then the pool's queue: its first wait was a millisecond armed on the read watchdog, which a thread
     * preempted at load could lose to the watchdog's cut (a read of bytes already there then saw the input shut: EOF,
     * hostile10b's run 01); now a connection that has spoken waits as any other. On virtual threads nothing changes.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "{0}, {1}")
    @org.junit.jupiter.params.provider.CsvSource({"platform:2, plain", "platform:2, tls", "virtual, plain",
            "virtual, tls"})
    void aClientQueuedForAThreadPastIdleTimeoutIsServedOnceItHasSpoken(String threads, String protocol)
            throws Exception {
        boolean overTls = protocol.equals("tls");
        TestPki pki = TestPki.create("Queued client CA");
        TestPki.Issued cert = pki.issue("server", "localhost", "localhost");
        SSLContext clientContext = pki.clientContext(null);
        ServerTls tls = overTls ? ServerTls.create(ServerTlsSettings.of(KeySource.pem(cert.cert(), cert.key()))) : null;
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        AtomicInteger holding = new AtomicInteger();
        ExchangeHandler handler = ex -> {
            if (ex.request().target().equals("/hold")) {
                holding.incrementAndGet();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            ex.respond(200, ex.request().target() + "#" + ex.requestIndex());
        };
        int poolThreads = 2;
        Listener l = new Listener(RunningListener.settings(Duration.ofSeconds(3), Duration.ofSeconds(1),
                Duration.ofSeconds(10)), tls, handler,
                ConnectionExecutors.create(threads.equals("virtual") ? ThreadModel.VIRTUAL
                        : new ThreadModel.Platform(poolThreads), "park-test-queued-spoke"), ConnectionListener.NOOP,
                Watchdog.shared(), null).idleHandoff(SHORT_HANDOFF).transport(transport()).start();
        List<RawClient> holders = new ArrayList<>();
        try (l) {
            for (int i = 0; i < poolThreads; i++) {
                RawClient h = overTls ? RawClient.tls(clientContext, l.port(), "localhost", 30_000)
                        : new RawClient(l.port());
                holders.add(h.send("GET /hold HTTP/1.1\r\nHost: t\r\n\r\n"));
            }
            RunningListener.await("every pool thread held", () -> holding.get() == poolThreads);
            CompletableFuture<RawClient.Response> answer = CompletableFuture.supplyAsync(() -> {
                try (RawClient c = overTls ? RawClient.tls(clientContext, l.port(), "localhost", 30_000)
                        : new RawClient(l.port())) {
                    c.socket().setSoTimeout(30_000);
                    if (overTls) {
                        Thread.sleep(100); // an active client: its request comes a moment after its handshake
                    }
                    return c.send("GET /late HTTP/1.1\r\nHost: t\r\n\r\n").read();
                } catch (Exception e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
            }, java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
            // (on virtual threads it may be served and gone already: nothing holds it)
            RunningListener.await("the client accepted",
                    () -> l.openConnections() == poolThreads + 1 || answer.isDone());
            // The scenario's shape, not a wait for readiness: the client's accept grows older than idle-timeout (1 s)
            // while the pool's threads are held; within header-timeout (3 s), so a TLS handshake is not cut unstarted.
            Thread.sleep(1500);
            release.countDown();
            assertThat(answer.get(30, TimeUnit.SECONDS).bodyText()).as("the late client's answer").isEqualTo("/late#0");
            for (RawClient h : holders) {
                assertThat(h.read().bodyText()).isEqualTo("/hold#0");
            }
        } finally {
            release.countDown();
            for (RawClient h : holders) {
                h.close();
            }
        }
    }

    /** Opened and closed connections, and TLS handshakes that failed by their deadlines. */
    private static final class TlsCounting extends Counting {
        final AtomicInteger timedOut = new AtomicInteger();
        final AtomicInteger notStarted = new AtomicInteger();

        @Override
        public void tlsHandshakeFailed(InetSocketAddress remote, HandshakeFailure why) {
            if (why == HandshakeFailure.TIMED_OUT) {
                timedOut.incrementAndGet();
            } else if (why == HandshakeFailure.NOT_STARTED) {
                notStarted.incrementAndGet();
            }
        }
    }
}
