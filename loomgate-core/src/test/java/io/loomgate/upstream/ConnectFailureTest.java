package io.loomgate.upstream;

import static io.loomgate.upstream.TestPools.within;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.THROWABLE;

import io.loomgate.http.HttpLimits;
import io.loomgate.testkit.BlackHole;
import io.loomgate.testkit.CountingServer;
import io.loomgate.testkit.H2Origin;
import io.loomgate.testkit.SlowAccept;
import io.loomgate.testkit.StalledHandshake;
import io.loomgate.testkit.TestPki;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.tls.ClientTls;
import io.loomgate.tls.ClientTlsSettings;
import io.loomgate.tls.TlsProvider;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A failed dial comes out as ConnectException (refused) or SocketTimeoutException (connect timeout), names the
 * endpoint, is reported to the listener, and gives its reserved slot back. Requests waiting in line on a dial that
 * fails, with no connection open that could serve them, fail with it: none dials the dead endpoint again after it.
 */
class ConnectFailureTest {
    private static final PoolSettings ONE_CONNECTION = new PoolSettings(1, 1, Duration.ofSeconds(60),
            Duration.ofMillis(300), HttpLimits.DEFAULTS);

    /** Held shared by the stalled-dial cases that run side by side, whole by the two-stage ones (see there). */
    private static final String DIAL_TIMING = "ConnectFailureTest.dial-timing";
    /** Runs of a timing case whose arrangement (not the behaviour) a loaded machine may miss: the last one asserts. */
    private static final int ARRANGEMENT_TRIES = 3;
    /**
     * The two-stage origin must open before the kernel sends the dial's SYN again (about 1 s after the first): its
     * first accept (a filler's of its full queue, or the dial's) by then.
     */
    private static final long OPENED_IN_TIME_MILLIS = 950;

    private final RecordingPoolListener listener = new RecordingPoolListener();

    /** The upstream TLS provider under test: JSSE here; loomgate-conscrypt runs the class again with Conscrypt. */
    TlsProvider provider() {
        return TlsProvider.JDK;
    }

    @Test
    void refusedConnectThrowsConnectExceptionAndFreesTheSlot() throws Exception {
        Endpoint closedPort = closedPort();
        UpstreamPool pool = new UpstreamPool(closedPort, ONE_CONNECTION, listener);

        for (int attempt = 0; attempt < 2; attempt++) { // the second would be PoolExhausted if the slot leaked
            assertThatThrownBy(() -> pool.acquire(within(Duration.ofMillis(10)), false))
                    .isInstanceOf(ConnectException.class)
                    .hasMessageContaining("connect to " + closedPort + " failed");
        }
        assertThat(pool.inUseCount()).isZero();
        assertThat(pool.connectCount()).isZero();
        assertThat(listener.events).containsExactly("connectFailed:ConnectException",
                "connectFailed:ConnectException");
    }

    @Test
    void connectTimeoutThrowsSocketTimeoutExceptionAndFreesTheSlot() throws Exception {
        Endpoint endpoint = new Endpoint("127.0.0.1", 9);
        AtomicInteger timeoutSeen = new AtomicInteger();
        Connector neverConnects = new Connector(endpoint, ONE_CONNECTION, listener, (address, timeoutMillis) -> {
            timeoutSeen.set(timeoutMillis);
            throw new SocketTimeoutException("Connect timed out");
        });
        UpstreamPool pool = new UpstreamPool(neverConnects, ONE_CONNECTION, listener, System::nanoTime);

        for (int attempt = 0; attempt < 2; attempt++) {
            assertThatThrownBy(() -> pool.acquire(within(Duration.ofMillis(10)), false))
                    .isInstanceOf(SocketTimeoutException.class)
                    .hasMessage("connect to 127.0.0.1:9 timed out after 300ms");
        }
        // The dial's budget is the connect timeout (300 ms) from the dial's start; what the socket's connect gets is
        // what is left of it when it is called, a millisecond less if one passed first (CI run 89: 299).
        assertThat(timeoutSeen.get()).isBetween(250, 300);
        assertThat(pool.inUseCount()).isZero();
        assertThat(listener.events).containsExactly("connectFailed:SocketTimeoutException",
                "connectFailed:SocketTimeoutException");
    }

    @Test
    void unknownHostIsAConnectException() {
        Endpoint nowhere = new Endpoint("no-such-host.invalid", 80);
        UpstreamPool pool = new UpstreamPool(nowhere, ONE_CONNECTION, listener);

        assertThatThrownBy(() -> pool.acquire(within(Duration.ofMillis(10)), false))
                .isInstanceOf(ConnectException.class)
                .hasMessage("connect to no-such-host.invalid:80 failed: unknown host no-such-host.invalid");
        assertThat(pool.inUseCount()).isZero();
    }

    /** How the endpoint stalls, and which pool waits on it. */
    enum Stall {
        /** HTTP/1.1, one connection: the TCP connect never completes (a full accept queue drops the SYN). */
        HTTP1_CONNECT(false, false),
        /** HTTP/1.1 over TLS, one connection: accepted, the handshake never answered. */
        HTTP1_TLS_HANDSHAKE(true, false),
        /** h2c (one dial at a time, the rest wait for its SETTINGS' slots): the TCP connect never completes. */
        H2C_CONNECT(false, true),
        /** https with HTTP/2 (ALPN h2): accepted, the handshake never answered. */
        H2_TLS_HANDSHAKE(true, true);

        final boolean tls;
        final boolean http2;

        Stall(boolean tls, boolean http2) {
            this.tls = tls;
            this.http2 = http2;
        }
    }

    /**
     * Four requests ask at once for a connection to an endpoint that never completes the connect (or the TLS
     * handshake); one dials, the others wait in line (HTTP/1.1: max-connections 1; HTTP/2: one dial at a time).
     * When that dial times out, every waiter fails with the same timeout at once: one failed dial, four failed
     * requests, each answered within about one connect timeout of its own arrival. (Before, the failed dial's slot
     * went to the oldest waiter, which dialled again: the fourth request failed after four connect timeouts.)
     */
    @ParameterizedTest
    // Side by side (the module's pom enables JUnit's parallel mode for what asks): each case has its own pool,
    // listener (a new test instance per case) and stalled origin on a port of its own, and spends its time waiting
    // out that pool's connect timeout; its timing checks compare its own requests with each other or with its own
    // one-stage reference, not with the clock. Not the two-stage cases below: their slow stage is the kernel's SYN
    // retransmission at about 1 s, which finds the origin open only if its opening (0.6 s) ran in time; beside
    // the other cases its h2c case once got the connect's timeout instead (session 52), so they take this lock
    // whole, which keeps them apart from these.
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = DIAL_TIMING, mode = ResourceAccessMode.READ)
    @EnumSource(Stall.class)
    void requestsWaitingOnADialThatTimesOutFailWithItAtOnce(Stall stall) throws Exception {
        assertWaitersFailWithTheDial(stall, 0);
    }

    /**
     * The same with the requests arriving 100 ms apart: each is answered by the one dial's timeout. The last arrives
     * 300 ms after the first, 1.7 s before the dial's 2 s budget ends (with 500 ms, load ~20 once started the fourth
     * request's thread after the dial had failed, and it rightly dialled again).
     */
    @ParameterizedTest
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = DIAL_TIMING, mode = ResourceAccessMode.READ)
    @EnumSource(Stall.class)
    void requestsArrivingWhileADialStallsFailWithItsTimeout(Stall stall) throws Exception {
        assertWaitersFailWithTheDial(stall, 100);
    }

    /**
     * Runs the case until its arrangement holds (every request in line before the dial fails), at most
     * {@link #ARRANGEMENT_TRIES} times: at load ~19 a request's thread once started after the dial had failed (CI run
     * 64, session 55), which says nothing about the pool. What the case asserts about the pool is checked on the
     * first run whose arrangement held, as strictly as before.
     */
    private void assertWaitersFailWithTheDial(Stall stall, long staggerMillis) throws Exception {
        for (int attempt = 1; ; attempt++) {
            if (waitersFailWithTheDial(stall, staggerMillis, attempt == ARRANGEMENT_TRIES)) {
                return;
            }
            System.out.printf("%s, %d ms apart: a request arrived after the dial failed (the machine's load): again%n",
                    stall, staggerMillis);
        }
    }

    /** One run of the case; false when its arrangement did not hold and {@code last} is false. */
    private boolean waitersFailWithTheDial(Stall stall, long staggerMillis, boolean last) throws Exception {
        RecordingPoolListener recorded = new RecordingPoolListener();
        // What is under test needs every request in line before the one dial fails: a request that arrives after it
        // dials again, as it should. The budget is wide against the arrivals (the last is due 300 ms after the first),
        // so that scheduling on a loaded machine (2 cores, load 20) does not push an arrival past the dial's end.
        Duration connectTimeout = Duration.ofSeconds(2);
        PoolSettings settings = new PoolSettings(1, 1, Duration.ofSeconds(60), connectTimeout, HttpLimits.DEFAULTS)
                .withHttp2(stall.tls && stall.http2, 1);
        if (stall.tls) {
            // made before the clock starts: a cold JVM's first TLS context takes about a second of its own
            settings = settings.withTls(ClientTls.create(ClientTlsSettings.DEFAULTS.withProvider(provider())));
        }
        int requests = 4;
        try (AutoCloseable origin = stall.tls ? new StalledHandshake() : new BlackHole()) {
            int port = origin instanceof StalledHandshake t ? t.port() : ((BlackHole) origin).port();
            Endpoint endpoint = new Endpoint("127.0.0.1", port, stall.tls, stall.http2);
            UpstreamPool pool = new UpstreamPool(endpoint, settings, recorded);
            List<CompletableFuture<long[]>> answered = new ArrayList<>(); // {waited, answered at, arrived at} nanos
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            for (int i = 0; i < requests; i++) {
                if (i > 0 && staggerMillis > 0) {
                    // the arrival pattern under test, not a wait for readiness
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(staggerMillis));
                }
                CompletableFuture<long[]> f = new CompletableFuture<>();
                answered.add(f);
                ConnectionExecutors.startVirtual("acquirer-" + i, () -> {
                    long t0 = System.nanoTime();
                    try {
                        ConnectionLease lease = pool.lease(within(Duration.ofSeconds(30)), false);
                        f.completeExceptionally(new AssertionError("leased " + lease));
                    } catch (Throwable e) {
                        failures.add(e);
                        long now = System.nanoTime();
                        f.complete(new long[] {now - t0, now, t0});
                    }
                });
            }
            List<Duration> waited = new ArrayList<>();
            long firstAnswer = Long.MAX_VALUE;
            long lastAnswer = Long.MIN_VALUE;
            long lastArrival = Long.MIN_VALUE;
            for (CompletableFuture<long[]> f : answered) {
                long[] w = f.get(20, TimeUnit.SECONDS);
                waited.add(Duration.ofNanos(w[0]));
                firstAnswer = Math.min(firstAnswer, w[1]);
                lastAnswer = Math.max(lastAnswer, w[1]);
                lastArrival = Math.max(lastArrival, w[2]);
            }
            System.out.printf("%s, %d ms apart: answered after %s (from each one's arrival), last arrival %d ms "
                    + "before the first answer, %s%n", stall, staggerMillis,
                    waited.stream().map(d -> d.toMillis() + " ms").toList(),
                    TimeUnit.NANOSECONDS.toMillis(firstAnswer - lastArrival), recorded.events);
            // The arrangement, checked before the behaviour: if this fails, the machine was too slow for the test,
            // which says so rather than blaming the pool with a count of dials (and runs it again while it may).
            if (lastArrival >= firstAnswer && !last) {
                pool.close();
                return false;
            }
            assertThat(lastArrival).as("every request arrived before the dial failed (else it dials again)")
                    .isLessThan(firstAnswer);
            assertThat(recorded.events).as("one dial for the four requests")
                    .containsExactly("connectFailed:SocketTimeoutException");
            // All answered by the one dial's failure, together; before stop 49, one connect timeout apart (three
            // timeouts, 6 s, from the first answer to the last). Measured against each other, not the clock, so a
            // loaded machine's or a cold JVM's first handshake's extra time (the dialler's as much as the waiters')
            // does not fail it.
            assertThat(Duration.ofNanos(lastAnswer - firstAnswer)).as("from the first answer to the last")
                    .isLessThan(Duration.ofSeconds(1));
            assertThat(waited).as("answered within the connect timeout of its arrival and a margin")
                    .allSatisfy(d -> assertThat(d).isLessThan(connectTimeout.plusMillis(2_500)));
            assertThat(failures).hasSize(requests).allSatisfy(e -> assertThat(e)
                    .isInstanceOf(SocketTimeoutException.class)
                    .hasMessage(failures.getFirst().getMessage())
                    .hasMessageContaining(endpoint.toString()).hasMessageContaining("timed out after 2000ms"));
            assertThat(pool.inUseCount()).isZero();
            pool.close();
        }
        return true;
    }

    /** An origin slow at two stages of a dial, and which pool dials it. */
    enum TwoStages {
        /** HTTP/1.1 over TLS: a TCP connect that takes about a second, then a handshake never answered. */
        HTTP1_CONNECT_THEN_HANDSHAKE(true, false, "TLS handshake with"),
        /** https with HTTP/2 (ALPN h2 offered): the same through the HTTP/2 pool. */
        H2_CONNECT_THEN_HANDSHAKE(true, true, "TLS handshake with"),
        /** h2c: a TCP connect that takes about a second, then no SETTINGS. */
        H2C_CONNECT_THEN_SETTINGS(false, true, "sent no SETTINGS");

        final boolean tls;
        final boolean http2;
        final String failure;

        TwoStages(boolean tls, boolean http2, String failure) {
            this.tls = tls;
            this.http2 = http2;
            this.failure = failure;
        }
    }

    /**
     * {@code connect-timeout} is one budget for the whole dial: an origin whose TCP connect takes about 1 s of a 1.5 s
     * budget ({@link SlowAccept}: its SYN dropped once, answered when the kernel sends it again) and whose handshake
     * (or, for h2c, SETTINGS) then never comes is answered when the budget ends, about when an origin that stalls at
     * one stage only ({@link StalledHandshake}: connects at once) dialled at the same moment is, with the failure
     * of the stage that ran out. (Before session 49 each stage had the whole timeout: about 1 + 1.5 s, a second
     * after the one-stage origin.) Measured against the one-stage origin, not the clock, so that a loaded machine's
     * delays, which both dials share, do not fail it.
     */
    @ParameterizedTest
    @ResourceLock(DIAL_TIMING)
    @EnumSource(TwoStages.class)
    void anOriginSlowAtTwoStagesIsAnsweredWithinOneConnectTimeout(TwoStages stages) throws Exception {
        for (int attempt = 1; ; attempt++) {
            if (slowAtTwoStages(stages, attempt == ARRANGEMENT_TRIES)) {
                return;
            }
            System.out.printf("%s: the slow origin did not open before the SYN came again (the machine's load): "
                    + "again%n", stages);
        }
    }

    /**
     * One run of the case; false when its arrangement did not hold (the slow origin opened after the kernel's SYN
     * retransmission at about 1 s, so the connect stage alone ran out: CI run 64's h2c case at load ~19, no accept
     * at all in 1.5 s) and {@code last} is false.
     */
    private boolean slowAtTwoStages(TwoStages stages, boolean last) throws Exception {
        RecordingPoolListener recorded = new RecordingPoolListener();
        Duration connectTimeout = Duration.ofMillis(1_500);
        PoolSettings settings = new PoolSettings(1, 1, Duration.ofSeconds(60), connectTimeout, HttpLimits.DEFAULTS)
                .withHttp2(stages.tls && stages.http2, 1);
        if (stages.tls) {
            settings = settings.withTls(ClientTls.create(ClientTlsSettings.DEFAULTS.withProvider(provider()))); // before the clock starts
        }
        RecordingPoolListener oneStageListener = new RecordingPoolListener();
        try (SlowAccept twoStage = new SlowAccept(); StalledHandshake oneStage = new StalledHandshake()) {
            UpstreamPool slow = new UpstreamPool(new Endpoint("127.0.0.1", twoStage.port(), stages.tls, stages.http2),
                    settings, recorded);
            UpstreamPool reference = new UpstreamPool(
                    new Endpoint("127.0.0.1", oneStage.port(), stages.tls, stages.http2), settings, oneStageListener);
            long t0 = System.nanoTime();
            CompletableFuture<Object[]> slowAnswer = leaseFails(slow, "two-stage");
            CompletableFuture<Object[]> referenceAnswer = leaseFails(reference, "one-stage");
            twoStage.openAfter(600); // the slow stage: accepts from 0.6 s, the SYN comes again at about 1 s

            Object[] s = slowAnswer.get(20, TimeUnit.SECONDS);
            Object[] r = referenceAnswer.get(20, TimeUnit.SECONDS);
            long slowNanos = (long) s[0];
            long referenceNanos = (long) r[0];
            List<Long> connectedAfter = twoStage.acceptedAt().stream()
                    .map(at -> TimeUnit.NANOSECONDS.toMillis(at - t0)).toList();
            System.out.printf("%s: two stages answered after %d ms, one stage after %d ms (connect timeout %d ms); "
                    + "the slow origin accepted at %s ms; %s%n", stages, TimeUnit.NANOSECONDS.toMillis(slowNanos),
                    TimeUnit.NANOSECONDS.toMillis(referenceNanos), connectTimeout.toMillis(), connectedAfter,
                    s[1]);
            if ((connectedAfter.isEmpty() || connectedAfter.getFirst() >= OPENED_IN_TIME_MILLIS) && !last) {
                slow.close();
                reference.close();
                return false;
            }
            assertThat((Throwable) s[1]).as("the stage that ran out keeps its failure")
                    .isInstanceOf(SocketTimeoutException.class).hasMessageContaining(stages.failure);
            assertThat(Duration.ofNanos(slowNanos - referenceNanos))
                    .as("two slow stages answered with one stalled stage, not a connect timeout later")
                    .isLessThan(Duration.ofMillis(500));
            assertThat(Duration.ofNanos(slowNanos)).as("not before the budget ran out")
                    .isGreaterThanOrEqualTo(connectTimeout.minusMillis(50))
                    .as("within the connect timeout and a margin").isLessThan(connectTimeout.plusMillis(2_500));
            if (stages.tls) {
                assertThat(recorded.events).as("one dial, one connect failure")
                        .containsExactly("connectFailed:SocketTimeoutException");
            }
            slow.close();
            reference.close();
        }
        return true;
    }

    /**
     * The handshake is bounded as a whole, not per read: an origin that accepts at once and then trickles a TLS record
     * (a handshake record's header announcing 16 KiB, then one byte every 200 ms, each read well within the socket's
     * read timeout) is cut when the connect timeout ends, with the handshake's timeout.
     */
    @Test
    void aHandshakeThatTricklesIsCutWhenTheBudgetEnds() throws Exception {
        Duration connectTimeout = Duration.ofMillis(1_000);
        PoolSettings settings = new PoolSettings(1, 1, Duration.ofSeconds(60), connectTimeout, HttpLimits.DEFAULTS)
                .withTls(ClientTls.create(ClientTlsSettings.DEFAULTS.withProvider(provider())));
        try (ServerSocket trickler = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            ConnectionExecutors.startVirtual("trickler", () -> {
                try (java.net.Socket s = trickler.accept()) {
                    java.io.OutputStream out = s.getOutputStream();
                    out.write(new byte[] {0x16, 0x03, 0x03, 0x40, 0x00}); // handshake record, 16384 bytes to come
                    out.flush();
                    for (int i = 0; i < 100; i++) { // the origin's pace under test, not a wait for readiness
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
                        out.write(0x02);
                        out.flush();
                    }
                } catch (java.io.IOException e) {
                    // the client cut it: expected
                }
            });
            UpstreamPool pool = new UpstreamPool(new Endpoint("127.0.0.1", trickler.getLocalPort(), true, false),
                    settings, listener);
            Object[] answer = leaseFails(pool, "trickled").get(20, TimeUnit.SECONDS);
            System.out.printf("trickled handshake answered after %d ms: %s%n",
                    TimeUnit.NANOSECONDS.toMillis((long) answer[0]), answer[1]);
            assertThat((Throwable) answer[1]).isInstanceOf(SocketTimeoutException.class)
                    .hasMessageContaining("TLS handshake with").hasMessageContaining("timed out after 1000ms");
            assertThat(Duration.ofNanos((long) answer[0])).isLessThan(connectTimeout.plusMillis(2_500));
            assertThat(listener.events).containsExactly("connectFailed:SocketTimeoutException");
            pool.close();
        }
    }

    /** Leases from {@code pool} on a thread of its own; completes with {nanos waited, what it threw}. */
    private static CompletableFuture<Object[]> leaseFails(UpstreamPool pool, String name) {
        CompletableFuture<Object[]> f = new CompletableFuture<>();
        ConnectionExecutors.startVirtual(name, () -> {
            long t0 = System.nanoTime();
            try {
                ConnectionLease lease = pool.lease(within(Duration.ofSeconds(30)), false);
                f.completeExceptionally(new AssertionError("leased " + lease));
            } catch (Throwable e) {
                f.complete(new Object[] {System.nanoTime() - t0, e});
            }
        });
        return f;
    }

    /**
     * With a connection to the endpoint open, a failed dial leaves the waiters waiting: the origin answers, and what
     * failed may be this dial alone. The slot goes to the oldest waiter, which dials (here, with success).
     */
    @Test
    void aDialThatFailsBesideAnOpenConnectionLeavesTheWaitersInLine() throws Exception {
        try (CountingServer server = new CountingServer()) {
            AtomicInteger dials = new AtomicInteger();
            CountDownLatch secondDialling = new CountDownLatch(1);
            CountDownLatch failSecond = new CountDownLatch(1);
            PoolSettings two = new PoolSettings(2, 2, Duration.ofSeconds(60), Duration.ofSeconds(2),
                    HttpLimits.DEFAULTS);
            Endpoint endpoint = new Endpoint(server.host(), server.port());
            Connector connector = new Connector(endpoint, two, listener, (address, timeoutMillis) -> {
                if (dials.incrementAndGet() == 2) {
                    secondDialling.countDown();
                    awaitQuietly(failSecond);
                    throw new SocketTimeoutException("Connect timed out");
                }
                SocketChannel channel = SocketChannel.open();
                channel.socket().connect(address, timeoutMillis);
                return channel.socket();
            });
            UpstreamPool pool = new UpstreamPool(connector, two, listener, System::nanoTime);
            PooledConnection open = pool.acquire(within(Duration.ofSeconds(5)), false);
            CompletableFuture<Object> second = new CompletableFuture<>();
            ConnectionExecutors.startVirtual("second", () -> acquireInto(pool, second));
            assertThat(secondDialling.await(5, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<Object> waiter = new CompletableFuture<>();
            Thread waiting = ConnectionExecutors.startVirtual("waiter", () -> acquireInto(pool, waiter));
            awaitParked(waiting); // the pool is full (one in use, one dialling): it can only be parked in line

            failSecond.countDown();

            assertThat(second.get(5, TimeUnit.SECONDS)).isInstanceOf(SocketTimeoutException.class);
            assertThat(waiter.get(5, TimeUnit.SECONDS)).as("the waiter dialled the slot it was handed")
                    .isInstanceOf(PooledConnection.class);
            assertThat(dials).hasValue(3);
            pool.release(open);
            pool.release((PooledConnection) waiter.get());
            pool.close();
        }
    }

    /**
     * A dialler the test steers: dial n (from 1) waits until the test {@linkplain #answer answers} it, then connects
     * to the real origin or throws what it was given. Dials the test did not script connect at once.
     */
    private static final class ScriptedDials implements Dialer {
        final AtomicInteger dials = new AtomicInteger();
        private final List<CompletableFuture<IOException>> answers = new CopyOnWriteArrayList<>();
        private final List<CountDownLatch> started = new CopyOnWriteArrayList<>();
        private final int scripted;

        ScriptedDials(int scripted) {
            this.scripted = scripted;
            for (int i = 0; i < scripted; i++) {
                answers.add(new CompletableFuture<>());
                started.add(new CountDownLatch(1));
            }
        }

        @Override
        public Socket dial(InetSocketAddress address, int timeoutMillis) throws IOException {
            int n = dials.incrementAndGet();
            if (n <= scripted) {
                started.get(n - 1).countDown();
                IOException failure;
                try {
                    failure = answers.get(n - 1).get(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IOException("dial " + n + " was never answered", e);
                }
                if (failure != null) {
                    throw failure;
                }
            }
            SocketChannel channel = SocketChannel.open();
            channel.socket().connect(address, timeoutMillis);
            return channel.socket();
        }

        void awaitStarted(int n) throws InterruptedException {
            assertThat(started.get(n - 1).await(5, TimeUnit.SECONDS)).as("dial " + n + " started").isTrue();
        }

        /** Lets dial n go on: null connects it, else it throws {@code failure}. */
        void answer(int n, IOException failure) {
            answers.get(n - 1).complete(failure);
        }
    }

    /**
     * Several dials in flight and nothing open (max-connections 2, both dialling): the first to fail (a momentary
     * refusal) leaves the waiters in line for the other, and its slot is held back, not dialled again at once. When
     * the other opens a connection, the held-back slot goes to the oldest waiter (which dials) and the connection,
     * released, to the next: nobody failed but the dialler whose own dial was refused. (Before, the first failure
     * failed both waiters at once, though the endpoint answered the other dial a moment later.)
     */
    @Test
    void aFailedDialLeavesTheWaitersToAnotherDialInFlight() throws Exception {
        try (CountingServer server = new CountingServer()) {
            PoolSettings two = new PoolSettings(2, 2, Duration.ofSeconds(60), Duration.ofSeconds(2),
                    HttpLimits.DEFAULTS);
            Endpoint endpoint = new Endpoint(server.host(), server.port());
            ScriptedDials dialer = new ScriptedDials(2);
            UpstreamPool pool = new UpstreamPool(new Connector(endpoint, two, listener, dialer), two, listener,
                    System::nanoTime);
            CompletableFuture<Object> refused = new CompletableFuture<>();
            ConnectionExecutors.startVirtual("refused", () -> acquireInto(pool, refused));
            dialer.awaitStarted(1);
            CompletableFuture<Object> opens = new CompletableFuture<>();
            ConnectionExecutors.startVirtual("opens", () -> acquireInto(pool, opens));
            dialer.awaitStarted(2);
            CompletableFuture<Object> first = new CompletableFuture<>();
            awaitParked(ConnectionExecutors.startVirtual("first waiter", () -> acquireInto(pool, first)));
            CompletableFuture<Object> second = new CompletableFuture<>();
            awaitParked(ConnectionExecutors.startVirtual("second waiter", () -> acquireInto(pool, second)));

            dialer.answer(1, new ConnectException("Connection refused"));

            assertThat(refused.get(5, TimeUnit.SECONDS)).isInstanceOf(ConnectException.class);
            // The failure path has run (its dialler was answered after it): a waiter it failed would be out of line.
            assertThat(pool.waitingCount()).as("the waiters stay in line for the dial still in flight").isEqualTo(2);
            assertThat(first).isNotDone();
            assertThat(dialer.dials).as("the refused dial's slot is held back, not dialled again").hasValue(2);

            dialer.answer(2, null);

            PooledConnection opened = (PooledConnection) opens.get(5, TimeUnit.SECONDS);
            assertThat(first.get(5, TimeUnit.SECONDS)).as("the oldest waiter dialled the held-back slot")
                    .isInstanceOf(PooledConnection.class).isNotSameAs(opened);
            pool.release(opened);
            assertThat(second.get(5, TimeUnit.SECONDS)).as("the next was handed the released connection")
                    .isSameAs(opened);
            assertThat(dialer.dials).hasValue(3);
            assertThat(listener.events).containsExactly("connectFailed:ConnectException", "connected", "connected",
                    "reused");
            pool.release((PooledConnection) first.get());
            pool.release(opened);
            pool.close();
        }
    }

    /**
     * The last of several dials in flight to fail, with nothing open, fails the waiters with its failure at once:
     * nothing is left that could serve them (waiting on would be a hang until each one's deadline). A waiter that
     * joins while they wait is still bounded by its own deadline (the route's timeout).
     */
    @Test
    void theLastOfSeveralDialsToFailFailsTheWaiters() throws Exception {
        try (CountingServer server = new CountingServer()) {
            PoolSettings two = new PoolSettings(2, 2, Duration.ofSeconds(60), Duration.ofSeconds(2),
                    HttpLimits.DEFAULTS);
            Endpoint endpoint = new Endpoint(server.host(), server.port());
            ScriptedDials dialer = new ScriptedDials(2);
            UpstreamPool pool = new UpstreamPool(new Connector(endpoint, two, listener, dialer), two, listener,
                    System::nanoTime);
            CompletableFuture<Object> a = new CompletableFuture<>();
            ConnectionExecutors.startVirtual("a", () -> acquireInto(pool, a));
            dialer.awaitStarted(1);
            CompletableFuture<Object> b = new CompletableFuture<>();
            ConnectionExecutors.startVirtual("b", () -> acquireInto(pool, b));
            dialer.awaitStarted(2);
            CompletableFuture<Object> waiter = new CompletableFuture<>();
            awaitParked(ConnectionExecutors.startVirtual("waiter", () -> acquireInto(pool, waiter)));

            dialer.answer(1, new ConnectException("Connection refused"));
            assertThat(a.get(5, TimeUnit.SECONDS)).isInstanceOf(ConnectException.class);
            assertThat(pool.waitingCount()).isEqualTo(1);

            // Joins while the other dial is in flight: it leaves at its own deadline, not later.
            long t0 = System.nanoTime();
            CompletableFuture<Object> shortDeadline = new CompletableFuture<>();
            ConnectionExecutors.startVirtual("short", () -> {
                try {
                    shortDeadline.complete(pool.acquire(within(Duration.ofMillis(300)), false));
                } catch (Throwable e) {
                    shortDeadline.complete(e);
                }
            });
            assertThat(shortDeadline.get(5, TimeUnit.SECONDS)).isInstanceOf(PoolExhaustedException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(Duration.ofMillis(290));

            dialer.answer(2, new SocketTimeoutException("Connect timed out"));

            assertThat(b.get(5, TimeUnit.SECONDS)).isInstanceOf(SocketTimeoutException.class);
            // Answered by the last failure (its deadline is 10 s away): a timeout of the last dial's kind.
            assertThat(waiter.get(5, TimeUnit.SECONDS)).as("the last failure fails the waiter")
                    .isInstanceOf(SocketTimeoutException.class)
                    .asInstanceOf(THROWABLE)
                    .hasMessageContaining("timed out");
            assertThat(pool.waitingCount()).isZero();
            assertThat(dialer.dials).as("nobody dialled the dead endpoint again").hasValue(2);
            assertThat(pool.inUseCount()).isZero();
            pool.close();
        }
    }

    /**
     * An HTTP/2 origin that accepts and never sends its SETTINGS is one connect failure of the timeout's kind, not a
     * connection made: {@code loomgate_upstream_connect_failures_total} counts it, the connect timer does not.
     * (Before, the connect was counted when TCP connected, and the SETTINGS wait's timeout nowhere.)
     */
    @Test
    void anHttp2OriginThatSendsNoSettingsIsOneConnectFailure() throws Exception {
        PoolSettings settings = new PoolSettings(1, 1, Duration.ofSeconds(60), Duration.ofMillis(300),
                HttpLimits.DEFAULTS);
        try (StalledHandshake silent = new StalledHandshake()) {
            UpstreamPool pool = new UpstreamPool(new Endpoint("127.0.0.1", silent.port(), false, true), settings,
                    listener);
            Object[] answer = leaseFails(pool, "no settings").get(20, TimeUnit.SECONDS);
            assertThat((Throwable) answer[1]).isInstanceOf(SocketTimeoutException.class)
                    .hasMessageContaining("sent no SETTINGS within the connect timeout");
            assertThat(listener.events).as("one dial, one connect failure, no connect")
                    .containsExactly("connectFailed:SocketTimeoutException");
            assertThat(pool.http2().connectCount()).isZero();
            pool.close();
        }
    }

    /**
     * An {@code https://} endpoint with HTTP/2 whose origin chooses {@code http/1.1} by ALPN: the TLS connection the
     * HTTP/2 pool made is the HTTP/1.1 pool's first connection (adopted), so the first request neither dials nor
     * handshakes again: the origin accepts one connection, counted once as a connection made. It is a pool member
     * like any other: released, the next lease reuses it.
     */
    @Test
    void anOriginChoosingHttp11ByAlpnServesTheFirstRequestOnTheConnectionMade() throws Exception {
        TestPki pki = TestPki.create("alpn h1 CA");
        TestPki.Issued cert = pki.issue("origin", "localhost", "localhost");
        // The budget is not under test here (which pool serves the connection is): 10 s, as the in-JVM origin's
        // first server handshake and the JVM's first client one both count against it (4.6 s at load ~15, session
        // 51's run 3, with 2 s: "TLS handshake ... timed out after 2000ms").
        PoolSettings settings = new PoolSettings(2, 2, Duration.ofSeconds(60), Duration.ofSeconds(10),
                HttpLimits.DEFAULTS).withHttp2(true, 1)
                .withTls(ClientTls.create(ClientTlsSettings.DEFAULTS.withTrust(pki.caCert()).withProvider(provider())));
        try (H2Origin origin = H2Origin.tls(cert, List.of("http/1.1"))) {
            UpstreamPool pool = new UpstreamPool(new Endpoint("localhost", origin.port(), true, true), settings,
                    listener);
            ConnectionLease first = pool.lease(within(Duration.ofSeconds(10)), false);

            assertThat(first).as("the HTTP/1.1 connection the HTTP/2 pool's dial made")
                    .isInstanceOf(PooledConnection.class);
            assertThat(first.reused()).isFalse();
            assertThat(pool.http2().http1Only()).isTrue();
            assertThat(origin.connections()).as("connections the origin accepted").isEqualTo(1);
            assertThat(listener.events).as("counted once, as a connection made").containsExactly("connected");
            assertThat(pool.connectCount()).isEqualTo(1);
            assertThat(pool.http2().connectCount()).isZero();

            getFiveBytes((PooledConnection) first);
            pool.release((PooledConnection) first);
            ConnectionLease again = pool.lease(within(Duration.ofSeconds(10)), false);
            assertThat(again).isSameAs(first);
            assertThat(origin.connections()).isEqualTo(1);
            pool.release((PooledConnection) again);
            pool.close();
        }
    }

    /**
     * One exchange on the connection (GET /bytes/5, its answer read whole), as the request that made it would: a TLS
     * 1.3 origin's session tickets, sent after the handshake, are read with the answer. A connection released without
     * any exchange still has them unread in the kernel, which every lease's check takes for bytes out of turn (since
     * session 56 there is no 50 ms grace), so it is discarded: a handshake wasted, no answer at risk (the gateway
     * releases one unused only when its request was cancelled while it was being dialled).
     */
    private static void getFiveBytes(PooledConnection c) throws IOException {
        OutputStream out = c.socket().getOutputStream();
        out.write("GET /bytes/5 HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        InputStream in = c.socket().getInputStream();
        byte[] end = "\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        for (int matched = 0; matched < end.length; ) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("the origin closed before its answer's head ended");
            }
            matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        assertThat(in.readNBytes(5)).as("the answer's body").hasSize(5);
    }

    private static void acquireInto(UpstreamPool pool, CompletableFuture<Object> into) {
        try {
            into.complete(pool.acquire(within(Duration.ofSeconds(10)), false));
        } catch (Throwable e) {
            into.complete(e);
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void awaitParked(Thread thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING) {
            assertThat(System.nanoTime()).as("waiter parked in time").isLessThan(deadline);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    /** A loopback port nobody listens on: bound, noted, and closed again. */
    private static Endpoint closedPort() throws Exception {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return new Endpoint(socket.getInetAddress().getHostAddress(), socket.getLocalPort());
        }
    }
}
