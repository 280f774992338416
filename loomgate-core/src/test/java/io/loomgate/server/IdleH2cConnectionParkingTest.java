package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http2.Http2Settings;
import io.loomgate.server.IdleConnectionParkingTest.Counting;
import io.loomgate.testkit.ManualClock;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import io.loomgate.threads.Watchdog;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Idle h2c (prior knowledge) connections parked in the listener's selector without a thread, on real sockets with a
 * raw HTTP/2 client: resumed by the next frame with their HPACK table intact, PING answered, ended by the idle timeout
 * and by drain with a GOAWAY, closed by the client, the Rapid Reset defence counting across parks, and many of them
 * churning at once, each counted closed exactly once.
 */
class IdleH2cConnectionParkingTest {
    private static final Duration SHORT_HANDOFF = Duration.ofMillis(20);
    private static final Http2Settings H2C = Http2Settings.DISABLED.withEnabled(true);
    /**
     * The idle timeout a stream's answer (/outlast) takes twice as long as. Not shorter: on virtual threads the
     * reader's hand-off waits while a stream is answered carry a watchdog one idle timeout behind their soft end, and
     * at 300 ms a hand-off wait whose thread waited more than ~580 ms for a carrier was cut (CI run 81, stop 59: the
     * epoll pass beside another module's build with -T 2).
     */
    private static final Duration OUTLASTED_IDLE = Duration.ofMillis(1000);
    /** The idle timeout of the silent-client tests; their answer takes 2.75 times as long. */
    private static final Duration SILENT_IDLE = Duration.ofMillis(800);
    /**
     * Echoes the path and the x-tenant field; /slow answers after five hand-off delays; /hang waits until its stream
     * is reset (its thread interrupted).
     */
    private static final ExchangeHandler HANDLER = ex -> {
        if (ex.request().target().equals("/slow")) {
            LockSupport.parkNanos(5 * SHORT_HANDOFF.toNanos());
        }
        if (ex.request().target().equals("/outlast")) {
            LockSupport.parkNanos(2 * OUTLASTED_IDLE.toNanos()); // an answer slower than the idle timeout
        }
        if (ex.request().target().equals("/silent")) {
            LockSupport.parkNanos(SILENT_IDLE.toNanos() * 11 / 4); // 2.75 idle timeouts
        }
        if (ex.request().target().equals("/hang")) {
            try {
                new CountDownLatch(1).await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                return; // reset by the client: nothing left to answer
            }
        }
        ex.respond(200, ex.request().target() + ":" + ex.request().headers().first("x-tenant"));
    };

    /** The listener's transport: the JDK's sockets here; loomgate-epoll runs these tests again on epoll. */
    Transport transport() {
        return Transport.JDK;
    }

    Listener start(Duration idleTimeout, Http2Settings h2, ConnectionListener events)
            throws IOException {
        return start(idleTimeout, h2, events, ThreadModel.VIRTUAL);
    }

    Listener start(Duration idleTimeout, Http2Settings h2, ConnectionListener events, ThreadModel threads)
            throws IOException {
        ListenerSettings s = RunningListener.settings(Duration.ofSeconds(10), idleTimeout, Duration.ofSeconds(60))
                .withHttp2(h2);
        return new Listener(s, null, HANDLER, ConnectionExecutors.create(threads, "h2-park-test"),
                events, Watchdog.shared(), null).idleHandoff(SHORT_HANDOFF).transport(transport()).start();
    }

    /**
     * A connection with a stream being answered is not idle, however long the answer takes and whatever the client
     * sends meanwhile (here nothing): before, the frame reader's wait ended at the idle timeout with streams open and
     * the connection went with GOAWAY "idle timeout", its streams unanswered. On a loaded {@code platform:4} gateway a
     * bystander's stream whose virtual thread waited for a carrier got that (journal 2026-12-02-s58-platformh2).
     */
    @Test
    void aStreamAnsweredAfterTheIdleTimeoutIsAnsweredOnVirtualThreads() throws Exception {
        aStreamAnsweredAfterTheIdleTimeoutIsAnswered(ThreadModel.VIRTUAL);
    }

    @Test
    void aStreamAnsweredAfterTheIdleTimeoutIsAnsweredOnAPlatformPool() throws Exception {
        aStreamAnsweredAfterTheIdleTimeoutIsAnswered(new ThreadModel.Platform(2));
    }

    private void aStreamAnsweredAfterTheIdleTimeoutIsAnswered(ThreadModel threads) throws Exception {
        try (Listener l = start(OUTLASTED_IDLE, H2C, ConnectionListener.NOOP, threads);
             H2cWire c = new H2cWire(l.port())) {
            c.headers(1, H2cWire.get("/outlast", new byte[0]));
            // body() fails on a GOAWAY before the stream's end (before: "GOAWAY 0 before stream 1 ended"); one after
            // it is the idle timeout, rightly, counted from the answer.
            assertThat(c.body(1)).isEqualTo("/outlast:null");
        }
    }

    /**
     * A stream's answer is not lost to its reader's wait being stretched past the idle timeout: the reader's thread
     * starved of a carrier for longer than that, as on a loaded machine (CI run 81, stop 59: the epoll pass's
     * {@link #aStreamAnsweredAfterTheIdleTimeoutIsAnsweredOnVirtualThreads} flaked at a 300 ms idle timeout). The
     * starving is made deterministic: the listener's read watchdog runs on a clock the handler moves on by three idle
     * timeouts at a time (time that passes for the watchdog while the reader's thread does not run), then looks,
     * twenty times, while the reader waits for the client's next frame. Before, the hand-off waits of a connection
     * that may park (virtual threads) armed the watchdog one idle timeout behind their soft end while a stream was
     * answered, and the first look cut the connection: GOAWAY "idle timeout", the stream unanswered (journal
     * 2026-12-02-s60-handoff). Now such a wait is open, as a busy connection's is: no bound until the last handler
     * returns. On a platform pool (no parking) the same holds through the busy path.
     */
    @Test
    void aStreamAnsweredWhileItsReadersWaitIsStretchedPastTheIdleTimeoutIsAnsweredOnVirtualThreads() throws Exception {
        aStreamAnsweredWhileItsReadersWaitIsStretched(ThreadModel.VIRTUAL);
    }

    @Test
    void aStreamAnsweredWhileItsReadersWaitIsStretchedPastTheIdleTimeoutIsAnsweredOnAPlatformPool() throws Exception {
        aStreamAnsweredWhileItsReadersWaitIsStretched(new ThreadModel.Platform(4));
    }

    private void aStreamAnsweredWhileItsReadersWaitIsStretched(ThreadModel threads) throws Exception {
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
        ListenerSettings s = RunningListener.settings(far, idle, far).withHttp2(H2C);
        try (Listener l = new Listener(s, null, stretching, ConnectionExecutors.create(threads, "h2-stretch-test"),
                ConnectionListener.NOOP, reads, null).idleHandoff(SHORT_HANDOFF).transport(transport()).start();
             H2cWire c = new H2cWire(l.port())) {
            c.headers(1, H2cWire.get("/held", new byte[0]));
            assertThat(c.body(1)).isEqualTo("/held:stretched"); // before: "GOAWAY 0 before stream 1 ended"
            c.headers(3, H2cWire.get("/again", new byte[0])); // and the connection goes on
            assertThat(c.body(3)).isEqualTo("/again:stretched");
        }
    }

    /**
     * The idle time of a connection whose reader comes back late from its hand-off wait (its thread starved) counts
     * from the last stream's answer, not from the reader's return: the bound the last handler set on the open wait is
     * carried over the wait's soft end (journal 2026-12-02-s60-handoff). On the driven watchdog clock (the parked
     * connection's idle end is on it too): 90 % of the idle timeout passes as soon as the answer is read, before the
     * reader's hand-off wait (3 s of real time) ends; once the connection has parked, 20 % more, and its idle end has
     * passed: GOAWAY, then the close. Counted from the reader's return, 100 % would still be ahead.
     */
    @Test
    void aLateReadersIdleTimeCountsFromTheLastAnswer() throws Exception {
        ManualClock clock = new ManualClock();
        Watchdog reads = Watchdog.driven(clock);
        Duration idle = Duration.ofSeconds(30);
        Duration far = Duration.ofDays(365);
        // the answer after the client's SETTINGS ACK is read, so that the reader's wait is the answering one
        ExchangeHandler late = ex -> {
            LockSupport.parkNanos(Duration.ofMillis(300).toNanos());
            ex.respond(200, ex.request().target());
        };
        ListenerSettings s = RunningListener.settings(far, idle, far).withHttp2(H2C);
        try (Listener l = new Listener(s, null, late, ConnectionExecutors.create(ThreadModel.VIRTUAL, "h2-late-test"),
                ConnectionListener.NOOP, reads, null).idleHandoff(Duration.ofSeconds(3)).transport(transport()).start();
             H2cWire c = new H2cWire(l.port())) {
            c.headers(1, H2cWire.get("/late", new byte[0]));
            assertThat(c.body(1)).isEqualTo("/late");
            clock.advance(idle.multipliedBy(9).dividedBy(10));
            RunningListener.await("parked", () -> l.parkedConnections() == 1);
            clock.advance(idle.dividedBy(5));
            c.expectGoAwayThenClose(1);
        }
    }

    /**
     * A client that says nothing after its request still has its connection ended about {@code idle-timeout} after
     * its last stream's answer, not sooner, however long the answer took: while a stream is answered the reader's
     * wait has no bound of its own, and the handler that ends the last stream starts the idle time (journal
     * 2026-12-02-s59-h2idle). The reader's wait here is the one with no bound: a busy connection's on virtual threads
     * (a hand-off delay longer than the test, so the earlier streams' quick frames mark it busy), every wait on a
     * platform pool. Before, the idle time counted in whole idle timeouts from the wait's start, so the GOAWAY came
     * a quarter of one after this answer.
     */
    @Test
    void aSilentClientsConnectionEndsAnIdleTimeoutAfterItsLastAnswerOnVirtualThreads() throws Exception {
        aSilentClientsConnectionEndsAnIdleTimeoutAfterItsLastAnswer(ThreadModel.VIRTUAL);
    }

    @Test
    void aSilentClientsConnectionEndsAnIdleTimeoutAfterItsLastAnswerOnAPlatformPool() throws Exception {
        aSilentClientsConnectionEndsAnIdleTimeoutAfterItsLastAnswer(new ThreadModel.Platform(2));
    }

    private void aSilentClientsConnectionEndsAnIdleTimeoutAfterItsLastAnswer(ThreadModel threads) throws Exception {
        ListenerSettings s = RunningListener.settings(Duration.ofSeconds(10), SILENT_IDLE, Duration.ofSeconds(60))
                .withHttp2(H2C);
        try (Listener l = new Listener(s, null, HANDLER, ConnectionExecutors.create(threads, "h2-silent-test"),
                ConnectionListener.NOOP, Watchdog.shared(), null).idleHandoff(Duration.ofSeconds(60))
                .transport(transport()).start();
             H2cWire c = new H2cWire(l.port())) {
            for (int stream = 1; stream <= 5; stream += 2) {
                c.headers(stream, H2cWire.get("/a", new byte[0]));
                assertThat(c.body(stream)).isEqualTo("/a:null");
            }
            c.headers(7, H2cWire.get("/silent", new byte[0]));
            assertThat(c.body(7)).isEqualTo("/silent:null");
            long answered = System.nanoTime();
            c.expectGoAwayThenClose(7);
            Duration after = Duration.ofNanos(System.nanoTime() - answered);
            // Not sooner than about the idle timeout (the answer reached this thread after the handler had ended, so
            // a little less may be seen), and not much later: the watchdog cuts when due.
            assertThat(after).isBetween(SILENT_IDLE.multipliedBy(6).dividedBy(10), SILENT_IDLE.plusSeconds(4));
        }
    }

    /**
     * Whether the connection (the listener's only one) has parked since {@code before} was read from
     * {@link Listener#parks()}, and is parked now. Never an absolute count: a connection may park once more than a
     * test expects wherever its client is descheduled for longer than the hand-off delay between two frames with no
     * stream open (a load of 9 did it, session 44: {@code parks() == 1} never came true, the wait gave up after 30 s).
     */
    private static boolean parkedAgain(Listener l, long before) {
        return l.parks() > before && l.parkedConnections() == 1;
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        return b.toByteArray();
    }

    @Test
    void anIdleH2cConnectionParksAndResumesWithItsHpackTableIntact() throws Exception {
        Counting events = new Counting();
        try (Listener l = start(Duration.ofSeconds(60), H2C, events); H2cWire c = new H2cWire(l.port())) {
            // x-tenant: acme enters the client's and the server's dynamic tables (index 62).
            c.headers(1, H2cWire.get("/a", H2cWire.indexedLiteral("x-tenant", "acme")));
            assertThat(c.body(1)).isEqualTo("/a:acme");
            RunningListener.await("the idle h2c connection parks", () -> l.parkedConnections() == 1);
            for (int i = 1; i <= 3; i++) { // resumed, parked again...
                int stream = 1 + 2 * i;
                long before = l.parks();
                // Only the index: it decodes only if the table kept the entry across the park.
                c.headers(stream, H2cWire.get("/b", H2cWire.indexed(62)));
                assertThat(c.body(stream)).isEqualTo("/b:acme");
                RunningListener.await("parked again", () -> parkedAgain(l, before));
            }
            assertThat(c.holds(H2cWire.GOAWAY)).isFalse();
            assertThat(l.openConnections()).isEqualTo(1);
            assertThat(events.closed.get()).isZero();
        }
    }

    @Test
    void aConnectionWhoseStreamOutlastsTheHandOffParksOnceTheStreamIsDone() throws Exception {
        // The reader's wait begins while the stream is open and the hand-off delay passes before it ends: the reader
        // must look again (another timed wait), not fall back to an untimed one that would keep its thread.
        try (Listener l = start(Duration.ofSeconds(60), H2C, ConnectionListener.NOOP);
             H2cWire c = new H2cWire(l.port())) {
            c.headers(1, H2cWire.get("/slow", new byte[0]));
            assertThat(c.body(1)).isEqualTo("/slow:null");
            RunningListener.await("parked after the slow stream", () -> l.parkedConnections() == 1);
            long before = l.parks();
            c.headers(3, H2cWire.get("/slow", new byte[0]));
            assertThat(c.body(3)).isEqualTo("/slow:null");
            RunningListener.await("parked again", () -> parkedAgain(l, before));
        }
    }

    @Test
    void aPingWhileParkedIsAnsweredAndTheConnectionParksAgain() throws Exception {
        try (Listener l = start(Duration.ofSeconds(60), H2C, ConnectionListener.NOOP);
             H2cWire c = new H2cWire(l.port())) {
            c.headers(1, H2cWire.get("/a", new byte[0]));
            assertThat(c.body(1)).isEqualTo("/a:null");
            RunningListener.await("parked", () -> l.parkedConnections() == 1);
            long before = l.parks();
            byte[] opaque = {1, 2, 3, 4, 5, 6, 7, 8};
            c.send(H2cWire.frame(H2cWire.PING, 0, 0, opaque));
            H2cWire.Frame ack = c.next(H2cWire.PING);
            assertThat(ack.flags() & H2cWire.ACK).isEqualTo(H2cWire.ACK);
            assertThat(ack.payload()).isEqualTo(opaque);
            RunningListener.await("parked again", () -> parkedAgain(l, before));
        }
    }

    @Test
    void theIdleTimeoutWhileParkedSendsGoAwayThenCloses() throws Exception {
        Counting events = new Counting();
        try (Listener l = start(Duration.ofMillis(1000), H2C, events); H2cWire c = new H2cWire(l.port())) {
            c.headers(1, H2cWire.get("/a", new byte[0]));
            assertThat(c.body(1)).isEqualTo("/a:null");
            RunningListener.await("parked", () -> l.parks() >= 1);
            c.expectGoAwayThenClose(1);
            RunningListener.await("closed once", () -> events.closed.get() == 1 && l.openConnections() == 0);
            assertThat(l.parkedConnections()).isZero();
        }
    }

    @Test
    void drainWhileParkedSendsGoAwayAndEndsTheConnections() throws Exception {
        Counting events = new Counting();
        Listener l = start(Duration.ofSeconds(60), H2C, events);
        List<H2cWire> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 10; i++) {
                H2cWire c = new H2cWire(l.port());
                clients.add(c);
                c.headers(1, H2cWire.get("/a", new byte[0]));
                assertThat(c.body(1)).isEqualTo("/a:null");
            }
            RunningListener.await("all parked", () -> l.parkedConnections() == 10);
            CompletableFuture<Boolean> drained = CompletableFuture.supplyAsync(() -> {
                try {
                    return l.drain(Duration.ofSeconds(60));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            for (H2cWire c : clients) {
                H2cWire.Frame goAway = c.next(H2cWire.GOAWAY);
                assertThat(goAway.is(H2cWire.GOAWAY)).as("GOAWAY on drain").isTrue();
                assertThat(goAway.int32(4)).isZero();
                assertThat(c.next()).isSameAs(H2cWire.END);
            }
            assertThat(drained.get(30, TimeUnit.SECONDS)).as("nothing was busy").isTrue();
            assertThat(l.openConnections()).isZero();
            assertThat(events.closed.get()).isEqualTo(10);
        } finally {
            for (H2cWire c : clients) {
                c.close();
            }
            l.close();
        }
    }

    @Test
    void aClientClosingWhileParkedIsCountedClosedOnce() throws Exception {
        Counting events = new Counting();
        try (Listener l = start(Duration.ofSeconds(60), H2C, events)) {
            try (H2cWire c = new H2cWire(l.port())) {
                c.headers(1, H2cWire.get("/a", new byte[0]));
                assertThat(c.body(1)).isEqualTo("/a:null");
                RunningListener.await("parked", () -> l.parkedConnections() == 1);
            } // FIN while parked
            RunningListener.await("the first closed", () -> events.closed.get() == 1 && l.parkedConnections() == 0);
            try (H2cWire c = new H2cWire(l.port())) {
                c.headers(1, H2cWire.get("/a", new byte[0]));
                assertThat(c.body(1)).isEqualTo("/a:null");
                RunningListener.await("parked", () -> l.parkedConnections() == 1);
                c.reset(); // RST while parked
            }
            RunningListener.await("both closed once", () -> events.closed.get() == 2 && l.openConnections() == 0);
            assertThat(l.parkedConnections()).isZero();
            assertThat(events.opened.get()).isEqualTo(2);
        }
    }

    @Test
    void rapidResetIsStillCutOffWhenTheResetsComeBetweenParks() throws Exception {
        // One reset a second, a burst of two: the third reset within a couple of seconds trips it, however many
        // parks came between (the rate limit lives in the connection's state, not its thread).
        Http2Settings strict = new Http2Settings(true, 100, H2C.initialWindowSize(), 100_000, 1, 50);
        try (Listener l = start(Duration.ofSeconds(60), strict, ConnectionListener.NOOP);
             H2cWire c = new H2cWire(l.port())) {
            H2cWire.Frame goAway = null;
            int cycles = 0;
            for (int stream = 1; goAway == null && stream < 40; stream += 2) {
                cycles++;
                long before = l.parks();
                c.send(concat(H2cWire.frame(H2cWire.HEADERS, H2cWire.END_HEADERS | H2cWire.END_STREAM, stream,
                                H2cWire.get("/hang", new byte[0])),
                        H2cWire.frame(H2cWire.RST_STREAM, 0, stream, new byte[] {0, 0, 0, 8})));
                RunningListener.await("parked after the reset, or cut off",
                        () -> parkedAgain(l, before) || c.holds(H2cWire.GOAWAY));
                if (c.holds(H2cWire.GOAWAY)) {
                    goAway = c.next(H2cWire.GOAWAY);
                }
            }
            assertThat(goAway).as("GOAWAY").isNotNull();
            assertThat(goAway.int32(4)).isEqualTo(H2cWire.ENHANCE_YOUR_CALM);
            assertThat(cycles).as("the resets were counted across parks").isBetween(3, 19);
            assertThat(l.parks()).as("parks between the resets").isGreaterThanOrEqualTo(2);
        }
    }

    @Test
    void manyH2cConnectionsParkResumeAndCloseConcurrently() throws Exception {
        // Each client's next request comes between 0 and 3 hand-off delays after its last response (before, around
        // and after the park), then it ends by FIN at once, FIN or RST after a pause, or a PING and a FIN.
        Counting events = new Counting();
        int clients = 150;
        int rounds = 4;
        try (Listener l = start(Duration.ofSeconds(60), H2C, events);
             ExecutorService vt = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Integer>> answered = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                int ending = i % 4;
                answered.add(vt.submit(() -> {
                    int ok = 0;
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    try (H2cWire c = new H2cWire(l.port())) {
                        for (int r = 0; r < rounds; r++) {
                            LockSupport.parkNanos(random.nextLong(3 * SHORT_HANDOFF.toNanos()));
                            int stream = 1 + 2 * r;
                            byte[] tenant = r == 0 ? H2cWire.indexedLiteral("x-tenant", "t" + ending)
                                    : H2cWire.indexed(62);
                            c.headers(stream, H2cWire.get("/r" + r, tenant));
                            if (c.body(stream).equals("/r" + r + ":t" + ending)) {
                                ok++;
                            }
                        }
                        switch (ending) {
                            case 0 -> { } // FIN at once
                            case 1 -> LockSupport.parkNanos(random.nextLong(5 * SHORT_HANDOFF.toNanos()));
                            case 2 -> {
                                LockSupport.parkNanos(random.nextLong(5 * SHORT_HANDOFF.toNanos()));
                                c.reset();
                            }
                            default -> {
                                LockSupport.parkNanos(random.nextLong(3 * SHORT_HANDOFF.toNanos()));
                                c.send(H2cWire.frame(H2cWire.PING, 0, 0, new byte[8]));
                                c.next(H2cWire.PING);
                            }
                        }
                    }
                    return ok;
                }));
            }
            int total = 0;
            for (Future<Integer> f : answered) {
                total += f.get(180, TimeUnit.SECONDS);
            }
            assertThat(total).isEqualTo(clients * rounds);
            RunningListener.await("all closed once", () -> events.closed.get() == clients);
            assertThat(events.opened.get()).isEqualTo(clients);
            assertThat(l.openConnections()).isZero();
            RunningListener.await("none parked", () -> l.parkedConnections() == 0);
            assertThat(l.parks()).as("some waits did park").isPositive();
        }
    }
}
