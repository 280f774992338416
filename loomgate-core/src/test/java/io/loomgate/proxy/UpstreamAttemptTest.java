package io.loomgate.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.http.BufferPool;
import io.loomgate.http.GeneratedField;
import io.loomgate.http.Headers;
import io.loomgate.http.HttpLimits;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import io.loomgate.http1.BodyFraming;
import io.loomgate.http1.BodyInputStream;
import io.loomgate.http1.HttpInput;
import io.loomgate.http2.Http2Settings;
import io.loomgate.testkit.H2Origin;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import io.loomgate.upstream.Endpoint;
import io.loomgate.upstream.PoolListener;
import io.loomgate.upstream.PoolSettings;
import io.loomgate.upstream.UpstreamDefinition;
import io.loomgate.upstream.UpstreamMember;
import io.loomgate.upstream.UpstreamPool;
import io.loomgate.upstream.Upstreams;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** One try upstream, against a real origin: it owns its connection from checkout to release or discard. */
class UpstreamAttemptTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final TestOrigin origin;
    private final Upstreams upstreams;
    private final UpstreamPool pool;
    private final UpstreamMember member;

    UpstreamAttemptTest() throws IOException {
        origin = new TestOrigin();
        upstreams = Upstreams.create(List.of(new UpstreamDefinition("u",
                List.of(new Endpoint("127.0.0.1", origin.port())), PoolSettings.DEFAULTS)), PoolListener.NOOP);
        member = upstreams.get("u").members().get(0);
        pool = member.pool();
    }

    @AfterEach
    void close() throws IOException {
        upstreams.close();
        origin.close();
    }

    private static RequestHead get(String target) {
        return new RequestHead("GET", target, "HTTP/1.1", new Headers().add("Host", "client.example"));
    }

    private static long deadline() {
        return System.nanoTime() + TIMEOUT.toNanos();
    }

    /** A whole exchange on {@code attempt}; returns the body text. */
    private static String exchange(UpstreamAttempt attempt, RequestHead request) throws IOException {
        attempt.connect(deadline());
        attempt.sendHead(request, BodyFraming.NONE, true, null);
        ResponseHead head = attempt.readHead(TIMEOUT, false, interim -> {
        });
        BodyFraming framing = BodyFraming.ofResponse(request.method(), head);
        BodyInputStream body = attempt.openBody(framing, HttpLimits.DEFAULTS, TIMEOUT);
        String text = new String(body.readAllBytes(), StandardCharsets.UTF_8);
        attempt.finish(body.isComplete() && ResponseHeadRewriter.keepsAlive(head));
        return text;
    }

    /**
     * A client's cancel after a bodiless request was sent (run twice, as a reset racing the cancel's registration
     * does) turns the attempt into a drain: the answer is read and dropped, the connection goes back to the pool, and
     * the drain is counted out once.
     */
    @Test
    void aCancelWhileTheAnswerIsAwaitedDrainsItAndKeepsTheConnection() throws Exception {
        try (UpstreamAttempt attempt = new UpstreamAttempt(member, 0)) {
            attempt.connect(deadline());
            attempt.sendHead(get("/a"), BodyFraming.NONE, true, null);
            attempt.clientCancelled();
            attempt.clientCancelled();
            assertThat(attempt.draining()).isTrue();
            assertThat(pool.state().drains()).isEqualTo(1);
            ResponseHead head = attempt.readHead(TIMEOUT, false, interim -> {
            });
            attempt.drainAfterCancel(head, BodyFraming.ofResponse("GET", head));
        }
        assertThat(pool.idleCount()).as("the connection went back to the pool").isEqualTo(1);
        assertThat(pool.state().drains()).isZero();
    }

    /**
     * A cancel that lands while the bodiless request's head is being written (here: from inside the head's writer,
     * as it reads a generated field) drains as one after it does. Before session 59 the attempt was marked as
     * awaiting its answer only once the write had returned, so a client's reset that came after the origin had the
     * whole head, but before the stream's thread ran again, closed the connection at once (the race
     * Http2StreamLifecycleTest's aResetStreamsOriginThatDoesNotAnswerHasItsConnectionClosed lost once).
     */
    @Test
    void aCancelWhileTheBodilessHeadIsWrittenDrainsAsAfterIt() throws Exception {
        try (UpstreamAttempt attempt = new UpstreamAttempt(member, 0)) {
            attempt.connect(deadline());
            GeneratedField cancelling = new GeneratedField() {
                private boolean cancelled;

                @Override
                public String name() {
                    return "x-probe";
                }

                @Override
                public int valueLength() {
                    if (!cancelled) {
                        cancelled = true;
                        attempt.clientCancelled(); // the client's reset, mid-write
                    }
                    return 1;
                }

                @Override
                public char valueAt(int i) {
                    return 'a';
                }
            };
            attempt.sendHead(get("/a"), BodyFraming.NONE, true, cancelling);
            assertThat(attempt.draining()).isTrue();
            ResponseHead head = attempt.readHead(TIMEOUT, false, interim -> {
            });
            attempt.drainAfterCancel(head, BodyFraming.ofResponse("GET", head));
        }
        assertThat(pool.idleCount()).as("the connection went back to the pool").isEqualTo(1);
        assertThat(pool.state().drains()).isZero();
    }

    /** Not while the request is still being written (here: before its head): the cancel aborts, as before. */
    @Test
    void aCancelBeforeTheRequestWasSentAborts() throws Exception {
        try (UpstreamAttempt attempt = new UpstreamAttempt(member, 0)) {
            attempt.connect(deadline());
            attempt.clientCancelled();
            assertThat(attempt.draining()).isFalse();
            assertThatThrownBy(() -> attempt.sendHead(get("/a"), BodyFraming.NONE, true, null))
                    .isInstanceOf(IOException.class);
        }
        assertThat(pool.idleCount()).isZero();
        assertThat(pool.state().drains()).isZero();
    }

    /**
     * A cancel that lands while the attempt is still dialling (here: held inside the pool's {@code connected} event,
     * after the TCP connect, before the lease is handed over): the fresh connection was never written to, so it goes
     * back to the pool unused, counted as connected and never as evicted, and the next attempt reuses it.
     */
    @Test
    void aCancelWhileDiallingGivesTheFreshConnectionBackUnused() throws Exception {
        java.util.concurrent.CountDownLatch dialling = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch cancelled = new java.util.concurrent.CountDownLatch(1);
        List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        PoolListener holding = new PoolListener() {
            @Override
            public void connected(Endpoint endpoint, long connectNanos) {
                events.add("connected");
                dialling.countDown();
                try {
                    cancelled.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }

            @Override
            public void evicted(Endpoint endpoint, io.loomgate.upstream.EvictionReason reason) {
                events.add("evicted " + reason);
            }
        };
        Upstreams held = Upstreams.create(List.of(new UpstreamDefinition("h",
                List.of(new Endpoint("127.0.0.1", origin.port())), PoolSettings.DEFAULTS)), holding);
        try {
            UpstreamMember m = held.get("h").members().get(0);
            UpstreamPool p = m.pool();
            UpstreamAttempt attempt = new UpstreamAttempt(m, 0);
            CompletableFuture<Throwable> connect = connectInBackground(attempt);
            assertThat(dialling.await(10, TimeUnit.SECONDS)).as("the attempt is dialling").isTrue();
            attempt.clientCancelled();
            cancelled.countDown();
            assertThat(connect.get(10, TimeUnit.SECONDS)).as("the cancelled attempt's connect")
                    .isInstanceOf(IOException.class).hasMessageContaining("cancelled");
            assertThat(p.idleCount()).as("the fresh connection went back to the pool").isEqualTo(1);
            assertThat(p.inUseCount()).isZero();
            assertThat(events).as("the pool's events: connected, never evicted").containsExactly("connected");
            assertThat(m.inFlight()).as("the attempt is counted out").isZero();
            try (UpstreamAttempt next = new UpstreamAttempt(m, 0)) {
                assertThat(exchange(next, get("/after"))).isEqualTo("hello from origin");
                assertThat(next.reused()).as("the next attempt reuses the connection the cancelled one dialled")
                        .isTrue();
            }
            assertThat(origin.connectionCount()).isEqualTo(1);
            assertThat(events).containsExactly("connected");
        } finally {
            held.close();
        }
    }


    /**
     * The HTTP/2 half: an h2c origin slow to accept (the kernel completed the TCP handshake; the origin reads and
     * writes nothing, its SETTINGS with it, until the test lets it), so the attempt waits in the pool's dial when the
     * client cancels. The dial completes; the slot reserved for the cancelled attempt is given back unused and the
     * connection stays in the pool, where the next attempt opens its stream. The origin allows one stream at a time,
     * so a slot not given back would show: the next attempt would dial a second connection (or wait for a slot).
     */
    @Test
    void aCancelWhileDiallingAnH2cOriginGivesItsSlotBackOnTheFreshConnection() throws Exception {
        try (H2Origin h2 = H2Origin.h2c(new Http2Settings(true, 1, 65_535, 100_000, 100, 50));
             SlowToAccept gate = new SlowToAccept(h2.port())) {
            Upstreams held = Upstreams.create(List.of(new UpstreamDefinition("h2",
                    List.of(new Endpoint("127.0.0.1", gate.port(), false, true)), PoolSettings.DEFAULTS)),
                    PoolListener.NOOP);
            try {
                UpstreamMember m = held.get("h2").members().get(0);
                UpstreamPool p = m.pool();
                UpstreamAttempt attempt = new UpstreamAttempt(m, 0);
                CompletableFuture<Throwable> connect = connectInBackground(attempt);
                assertThat(gate.awaitHeld()).as("the attempt is dialling: connected, the origin silent").isTrue();
                attempt.clientCancelled();
                gate.release();
                assertThat(connect.get(10, TimeUnit.SECONDS)).as("the cancelled attempt's connect")
                        .isInstanceOf(IOException.class).hasMessageContaining("cancelled");
                assertThat(p.http2ConnectionCount()).as("the fresh connection stays in the pool").isEqualTo(1);
                assertThat(p.http2StreamCount()).as("streams and slots held on it").isZero();
                assertThat(m.inFlight()).as("the attempt is counted out").isZero();
                for (int i = 0; i < 3; i++) {
                    assertThat(exchangeOnceAccepted(m, "/after/" + i)).isEqualTo("hello");
                }
                assertThat(h2.connections()).as("connections the origin accepted").isEqualTo(1);
                assertThat(p.http2().connectCount()).isEqualTo(1);
            } finally {
                held.close();
            }
        }
    }

    /**
     * One exchange on a new attempt, sent again while the origin refuses its stream: an origin allowing one stream at
     * a time counts the previous stream until its handler's thread has ended, which can be just after the client read
     * its answer, and refuses a stream opened in that gap with REFUSED_STREAM (unprocessed, safe to send again, RFC
     * 9113 §8.7; clean-clone run 34 met it once). Bounded by a deadline.
     */
    private static String exchangeOnceAccepted(UpstreamMember m, String path) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try (UpstreamAttempt next = new UpstreamAttempt(m, 0)) {
                return exchange(next, get(path));
            } catch (io.loomgate.http2.Http2StreamException e) {
                if (!e.refused() || System.nanoTime() > deadline) {
                    throw e;
                }
            }
        }
    }

    /**
     * An origin that is slow to accept: each connection is taken by the kernel and held, nothing read or written,
     * until {@link #release}; from then on its bytes are piped both ways to {@code target}.
     */
    private static final class SlowToAccept implements AutoCloseable {
        private final java.net.ServerSocket server = new java.net.ServerSocket(0, 50,
                java.net.InetAddress.getLoopbackAddress());
        private final int target;
        private final java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
        private final java.util.concurrent.CountDownLatch released = new java.util.concurrent.CountDownLatch(1);
        private final List<java.net.Socket> sockets = new java.util.concurrent.CopyOnWriteArrayList<>();

        SlowToAccept(int target) throws IOException {
            this.target = target;
            Thread.ofVirtual().start(this::accept);
        }

        int port() {
            return server.getLocalPort();
        }

        boolean awaitHeld() throws InterruptedException {
            return held.await(10, TimeUnit.SECONDS);
        }

        void release() {
            released.countDown();
        }

        private void accept() {
            while (!server.isClosed()) {
                try {
                    java.net.Socket in = server.accept();
                    sockets.add(in);
                    held.countDown();
                    Thread.ofVirtual().start(() -> pipe(in));
                } catch (IOException e) {
                    return;
                }
            }
        }

        private void pipe(java.net.Socket in) {
            try {
                if (!released.await(10, TimeUnit.SECONDS)) {
                    return;
                }
                java.net.Socket out = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), target);
                sockets.add(out);
                Thread.ofVirtual().start(() -> copy(out, in));
                copy(in, out);
            } catch (IOException | InterruptedException e) {
                // the test is over
            }
        }

        private static void copy(java.net.Socket from, java.net.Socket to) {
            try {
                from.getInputStream().transferTo(to.getOutputStream());
            } catch (IOException e) {
                // either side closed
            }
        }

        @Override
        public void close() throws IOException {
            released.countDown();
            server.close();
            for (java.net.Socket s : sockets) {
                s.close();
            }
        }
    }
    @Test
    void aFinishedAttemptReturnsItsConnectionForTheNextAttemptToReuse() throws Exception {
        try (UpstreamAttempt first = new UpstreamAttempt(member, 0)) {
            assertThat(exchange(first, get("/a"))).isEqualTo("hello from origin");
            assertThat(first.reused()).isFalse();
        }
        assertThat(pool.idleCount()).isEqualTo(1);
        assertThat(pool.inUseCount()).isZero();

        try (UpstreamAttempt second = new UpstreamAttempt(member, 0)) {
            exchange(second, get("/b"));
            assertThat(second.reused()).isTrue();
        }
        assertThat(origin.connectionCount()).isEqualTo(1);
        assertThat(origin.takeRequest().header("Host")).as("the client's Host is preserved")
                .isEqualTo("client.example");
    }

    @Test
    void closingAnUnfinishedAttemptDiscardsItsConnection() throws Exception {
        try (UpstreamAttempt attempt = new UpstreamAttempt(member, 0)) {
            attempt.connect(deadline());
            attempt.sendHead(get("/"), BodyFraming.NONE, false, null);
            attempt.readHead(TIMEOUT, false, interim -> {
            });
            // the body is never read: the connection is mid-response and must not be reused
        }
        assertThat(pool.idleCount()).isZero();
        assertThat(pool.inUseCount()).isZero();
        assertThat(origin.takeRequest().header("Host")).as("Host is the endpoint's when not preserved")
                .isEqualTo("127.0.0.1:" + origin.port());
    }

    @Test
    void theEndpointCountsAttemptsInFlightUntilEachEnds() throws Exception {
        UpstreamAttempt a = new UpstreamAttempt(member, 0);
        UpstreamAttempt b = new UpstreamAttempt(member, 0);
        assertThat(pool.state().inFlight()).isEqualTo(2);
        a.connect(deadline());
        a.close();
        assertThat(pool.state().inFlight()).isEqualTo(1);
        b.close(); // never connected
        b.close(); // idempotent
        assertThat(pool.state().inFlight()).isZero();
    }

    @Test
    void anAttemptIsFinishedOnlyOnce() throws Exception {
        UpstreamAttempt attempt = new UpstreamAttempt(member, 0);
        exchange(attempt, get("/"));
        assertThatThrownBy(() -> attempt.finish(true)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already finished");
        attempt.close(); // after finish: nothing to discard
        assertThat(pool.idleCount()).isEqualTo(1);
    }

    @Test
    void informationalHeadsArePassedOnExceptTheHundredContinue() throws Exception {
        origin.enqueue(Reply.raw("HTTP/1.1 100 Continue", List.of(),
                "HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"));
        List<Integer> interim = new ArrayList<>();
        try (UpstreamAttempt attempt = new UpstreamAttempt(member, 0)) {
            attempt.connect(deadline());
            attempt.sendHead(get("/"), BodyFraming.NONE, true, null);
            ResponseHead head = attempt.readHead(TIMEOUT, false, h -> interim.add(h.status()));
            assertThat(head.status()).isEqualTo(200);
        }
        assertThat(interim).containsExactly(103);
    }

    /**
     * A client whose body fails mid-way (here: ends 7 bytes short of its length) stops the origin: the HTTP/1.1
     * codec's stopOrigin is its attempt's abort, which closes the connection while the owner still waits for the
     * head; the origin sees it close rather than wait for the rest of a chunked body until the head's timeout.
     */
    @Test
    void aClientBodyThatFailsMidWayAbortsTheAttempt() throws Exception {
        BodyFraming chunked = new BodyFraming.Chunked();
        RequestHead post = new RequestHead("POST", "/cut", "HTTP/1.1",
                new Headers().add("Host", "client.example").add("Transfer-Encoding", "chunked"));
        try (UpstreamAttempt attempt = new UpstreamAttempt(member, 0)) {
            attempt.connect(deadline());
            attempt.sendHead(post, chunked, true, null);
            HttpInput in = new HttpInput(new ByteArrayInputStream("hel".getBytes(StandardCharsets.US_ASCII)),
                    BufferPool.SIZE, HttpLimits.DEFAULTS);
            BodyInputStream body = new BodyFraming.Fixed(10).open(in, HttpLimits.DEFAULTS);
            attempt.relayBody(body, chunked, TIMEOUT, h -> {
            });
            // The origin's side closed by the abort, the attempt not yet closed by its owner (polled, not slept).
            long end = System.nanoTime() + TIMEOUT.toNanos();
            while (origin.openConnectionCount() > 0 && System.nanoTime() < end) {
                Thread.sleep(5);
            }
            assertThat(origin.openConnectionCount()).as("the origin's connection, closed by the abort").isZero();
            assertThatThrownBy(() -> attempt.readHead(TIMEOUT, false, h -> {
            })).isInstanceOf(IOException.class);
        }
    }

    /**
     * A request without a body makes no upload of its own (a GET waiting for its origin holds none): its attempt asks
     * the shared, never-started one. A request with a body gets its own, so the shared one is never written.
     */
    @Test
    void onlyARequestWithABodyHasAnUploadOfItsOwn() throws Exception {
        try (UpstreamAttempt attempt = new UpstreamAttempt(member, 0)) {
            assertThat(exchange(attempt, get("/a"))).isEqualTo("hello from origin");
            assertThat(attempt.uploaded()).isZero();
            assertThat(attempt.answeredEarly()).isFalse();
        }
        byte[] bytes = "hello".getBytes(StandardCharsets.US_ASCII);
        // chunked: the body goes beside the request's thread, through the attempt's upload
        BodyFraming chunked = new BodyFraming.Chunked();
        RequestHead post = new RequestHead("POST", "/b", "HTTP/1.1",
                new Headers().add("Host", "client.example").add("Transfer-Encoding", "chunked"));
        try (UpstreamAttempt attempt = new UpstreamAttempt(member, 0)) {
            attempt.connect(deadline());
            attempt.sendHead(post, chunked, true, null);
            HttpInput in = new HttpInput(new ByteArrayInputStream(bytes), BufferPool.SIZE, HttpLimits.DEFAULTS);
            BodyInputStream body = new BodyFraming.Fixed(bytes.length).open(in, HttpLimits.DEFAULTS);
            attempt.relayBody(body, chunked, TIMEOUT, h -> {
            });
            assertThat(attempt.readHead(TIMEOUT, false, h -> {
            }).status()).isEqualTo(200);
            assertThat(attempt.endUpload(TIMEOUT)).as("the whole body went").isTrue();
            assertThat(attempt.uploaded()).isEqualTo(bytes.length);
        }
        assertThat(RequestUpload.NONE.sent()).as("the shared upload was never written").isZero();
        assertThat(RequestUpload.NONE.running() || RequestUpload.NONE.failed()
                || RequestUpload.NONE.answeredEarly()).isFalse();
    }

    @Test
    void aStaleReusedConnectionIsReportedAsARetryableFailure() throws Exception {
        try (UpstreamAttempt first = new UpstreamAttempt(member, 0)) {
            exchange(first, get("/warm"));
        }
        origin.enqueue(Reply.status(200).with(TestOrigin.Effect.NO_RESPONSE_CLOSE));
        UpstreamAttempt.Facts facts;
        ProxyFailure failure;
        try (UpstreamAttempt attempt = new UpstreamAttempt(member, 0)) {
            attempt.connect(deadline());
            IOException e = null;
            try {
                attempt.sendHead(get("/again"), BodyFraming.NONE, true, null);
                attempt.readHead(TIMEOUT, false, h -> {
                });
            } catch (IOException thrown) {
                e = thrown;
            }
            assertThat(e).as("the origin closed without answering").isNotNull();
            facts = attempt.facts();
            failure = FailureClassifier.classify(e, FailureClassifier.Stage.FORWARD, attempt.endpoint(), "r",
                    TIMEOUT);
        }
        assertThat(facts).isEqualTo(new UpstreamAttempt.Facts(0, true, true, false, true, false));
        assertThat(failure.kind()).isEqualTo(ProxyFailure.Kind.UPSTREAM_RESET);
        assertThat(FailureClassifier.mayRetry(failure, facts)).isTrue();
        assertThat(pool.inUseCount()).isZero();

        try (UpstreamAttempt retry = new UpstreamAttempt(member, 1)) {
            assertThat(exchange(retry, get("/again"))).isEqualTo("hello from origin");
            assertThat(retry.reused()).as("a retry dials a fresh connection").isFalse();
        }
    }

    @Test
    void noHeadWithinTheTimeoutIsASocketTimeout() throws Exception {
        origin.enqueue(Reply.ok("late").delayed(Duration.ofSeconds(30)));
        try (UpstreamAttempt attempt = new UpstreamAttempt(member, 0)) {
            attempt.connect(deadline());
            attempt.sendHead(get("/slow"), BodyFraming.NONE, true, null);
            long start = System.nanoTime();
            assertThatThrownBy(() -> attempt.readHead(Duration.ofMillis(300), false, h -> {
            })).isInstanceOf(java.net.SocketTimeoutException.class);
            assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(20));
            assertThat(attempt.facts().responseStarted()).isFalse();
        }
    }

    /** The attempt's connect on a thread of its own, closed after as the proxy does: its failure, or null. */
    private static CompletableFuture<Throwable> connectInBackground(UpstreamAttempt attempt) {
        CompletableFuture<Throwable> connect = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            Throwable failed = null;
            try {
                attempt.connect(deadline());
            } catch (Throwable t) {
                failed = t;
            } finally {
                attempt.close(); // as the proxy does after a failed connect
            }
            connect.complete(failed);
        });
        return connect;
    }
}
