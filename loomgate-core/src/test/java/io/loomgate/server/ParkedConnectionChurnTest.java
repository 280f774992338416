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
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * Many real connections parking, resuming and closing at once, in every order the clients can make: requests before,
 * during and after the hand-off, clients closing (FIN or reset) while parked or while their thread waits, the idle
 * timeout expiring while parked, the listener shut down under all of it, resumptions the executor refuses or fails
 * on. Whatever happened, every connection opened is counted closed exactly once, its permit comes back, and the
 * parked count returns to 0: the invariant ManyConnectionsIT once saw broken (74 of 10,000 counted open for good).
 */
class ParkedConnectionChurnTest {
    private static final Duration HANDOFF = Duration.ofMillis(10);
    private static final ExchangeHandler ECHO = ex -> ex.respond(200, ex.request().target() + "#" + ex.requestIndex());
    private static final int CLIENTS = 300;
    private static final int ROUNDS = 5;

    /** Counts every connection event, so that a double end or a lost one shows. */
    static final class Ledger extends IdleConnectionParkingTest.Counting {
        final AtomicInteger parked = new AtomicInteger();
        final AtomicInteger parkedHighWater = new AtomicInteger();

        @Override
        public void connectionParked() {
            parkedHighWater.accumulateAndGet(parked.incrementAndGet(), Math::max);
        }

        @Override
        public void connectionUnparked() {
            parked.decrementAndGet();
        }

        String describe(Listener l) {
            return "opened " + opened + ", closed " + closed + ", parked " + parked + ", listener open "
                    + l.openConnections() + ", listener parked " + l.parkedConnections();
        }
    }

    /**
     * A real virtual-thread executor that refuses or fails on some resumptions (tasks the idle poller hands it): what
     * the poller meets when the listener shuts down, or when the JVM runs out of memory starting a thread.
     */
    static final class FailingSometimes extends AbstractExecutorService {
        private final ExecutorService real = ConnectionExecutors.create(ThreadModel.VIRTUAL, "churn");
        private final AtomicLong tasks = new AtomicLong();
        final AtomicInteger refused = new AtomicInteger();

        @Override
        public void execute(Runnable task) {
            boolean resumption = Thread.currentThread().getName().startsWith("idle-connections-");
            long n = resumption ? tasks.incrementAndGet() : 0;
            if (resumption && n % 11 == 0) {
                refused.incrementAndGet();
                throw new RejectedExecutionException("refused on purpose (task " + n + ")");
            }
            if (resumption && n % 13 == 0) {
                refused.incrementAndGet();
                throw new OutOfMemoryError("failed on purpose (task " + n + ")");
            }
            real.execute(task);
        }

        @Override
        public void shutdown() {
            real.shutdown();
        }

        @Override
        public List<Runnable> shutdownNow() {
            return real.shutdownNow();
        }

        @Override
        public boolean isShutdown() {
            return real.isShutdown();
        }

        @Override
        public boolean isTerminated() {
            return real.isTerminated();
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
            return real.awaitTermination(timeout, unit);
        }
    }

    private static Listener start(ExecutorService executor, Ledger ledger, Duration idleTimeout) throws IOException {
        ListenerSettings d = RunningListener.settings(Duration.ofSeconds(10), idleTimeout, Duration.ofSeconds(60));
        ListenerSettings s = new ListenerSettings(d.address(), d.port(), d.backlog(), CLIENTS, d.headerTimeout(),
                d.idleTimeout(), d.readTimeout(), d.limits());
        return new Listener(s, null, ECHO, executor, ledger, Watchdog.shared(), null).idleHandoff(HANDOFF).start();
    }

    /**
     * One client: a few requests, each after a pause drawn to land before, around or well after the hand-off (so
     * some come while the connection parks, some while it is parked), then an end of a random kind. Returns the
     * requests answered; a connection the server ended (refused resumption, idle timeout, shutdown) stops early.
     */
    private static int client(int port, int rounds) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int answered = 0;
        try (RawClient c = new RawClient(port)) {
            c.socket().setSoTimeout(60_000);
            for (int r = 0; r < rounds; r++) {
                pause(random.nextInt(4) == 0 ? 0 : random.nextLong(4 * HANDOFF.toNanos()));
                c.send("GET /r HTTP/1.1\r\nHost: t\r\n\r\n");
                if (!c.read().bodyText().equals("/r#" + r)) {
                    return answered;
                }
                answered++;
            }
            switch (random.nextInt(4)) {
                case 0 -> { } // close at once: FIN while the thread still waits for the hand-off
                case 1 -> pause(3 * HANDOFF.toNanos()); // FIN while (most likely) parked
                case 2 -> { // reset while (most likely) parked
                    pause(3 * HANDOFF.toNanos());
                    c.socket().setSoLinger(true, 0);
                }
                default -> { // half-close while parked: the server reads EOF and closes
                    pause(3 * HANDOFF.toNanos());
                    c.socket().shutdownOutput();
                    c.isClosedByPeer();
                }
            }
        } catch (IOException | RuntimeException e) {
            // the server ended this connection (what some tests provoke); the ledger is what is checked
        }
        return answered;
    }

    private static void pause(long nanos) {
        if (nanos > 0) {
            LockSupport.parkNanos(nanos);
        }
    }

    /** Polls (no fixed sleep) with a deadline generous for a loaded 2-core machine. */
    private static void await(String what, BooleanSupplier condition, java.util.function.Supplier<String> state) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - end).as(() -> what + ": " + state.get()).isNegative();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    private static List<Future<Integer>> runClients(ExecutorService vt, int port, int clients) {
        List<Future<Integer>> all = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            all.add(vt.submit(() -> client(port, ROUNDS)));
        }
        return all;
    }

    private static void assertBalanced(Ledger ledger, Listener l) {
        await("every connection counted closed once", () -> ledger.closed.get() == ledger.opened.get()
                && l.openConnections() == 0 && ledger.parked.get() == 0 && l.parkedConnections() == 0,
                () -> ledger.describe(l));
        assertThat(ledger.closed.get()).as(ledger.describe(l)).isEqualTo(ledger.opened.get());
    }

    @Test
    void connectionsParkingResumingAndClosingAtOnceAreAllAnsweredAndEachEndedOnce() throws Exception {
        Ledger ledger = new Ledger();
        try (Listener l = start(ConnectionExecutors.create(ThreadModel.VIRTUAL, "churn"), ledger,
                Duration.ofSeconds(60)); ExecutorService vt = Executors.newVirtualThreadPerTaskExecutor()) {
            int answered = 0;
            for (Future<Integer> f : runClients(vt, l.port(), CLIENTS)) {
                answered += f.get(120, TimeUnit.SECONDS);
            }
            assertThat(answered).as("every request answered").isEqualTo(CLIENTS * ROUNDS);
            assertBalanced(ledger, l);
            assertThat(ledger.opened.get()).isEqualTo(CLIENTS);
            assertThat(l.parks()).as("connections did park").isPositive();
        }
    }

    @Test
    void theIdleTimeoutExpiringWhileClientsComeBackEndsEachConnectionOnce() throws Exception {
        // An idle timeout a few hand-off delays long: expiries race resumptions and clients' closes on the poller.
        Ledger ledger = new Ledger();
        try (Listener l = start(ConnectionExecutors.create(ThreadModel.VIRTUAL, "churn"), ledger,
                Duration.ofMillis(35)); ExecutorService vt = Executors.newVirtualThreadPerTaskExecutor()) {
            for (Future<Integer> f : runClients(vt, l.port(), CLIENTS)) {
                f.get(120, TimeUnit.SECONDS);
            }
            assertBalanced(ledger, l);
            assertThat(ledger.opened.get()).isEqualTo(CLIENTS);
        }
    }

    @Test
    void resumptionsTheExecutorRefusesOrFailsOnEndTheirConnectionsAndThePollerGoesOn() throws Exception {
        Ledger ledger = new Ledger();
        FailingSometimes executor = new FailingSometimes();
        try (Listener l = start(executor, ledger, Duration.ofSeconds(60));
             ExecutorService vt = Executors.newVirtualThreadPerTaskExecutor()) {
            for (Future<Integer> f : runClients(vt, l.port(), CLIENTS)) {
                f.get(120, TimeUnit.SECONDS);
            }
            assertThat(executor.refused.get()).as("some resumptions failed").isPositive();
            assertBalanced(ledger, l);
            // The poller survived its failures: a new connection still parks and resumes.
            long parks = l.parks();
            try (RawClient c = new RawClient(l.port())) {
                c.send("GET /after HTTP/1.1\r\nHost: t\r\n\r\n");
                assertThat(c.read().status()).isEqualTo(200);
                await("parks after the failures", () -> l.parks() > parks, () -> ledger.describe(l));
            }
            assertBalanced(ledger, l);
        }
    }

    @Test
    void shuttingTheListenerDownUnderChurnEndsEveryConnectionOnce() throws Exception {
        Ledger ledger = new Ledger();
        Listener l = start(ConnectionExecutors.create(ThreadModel.VIRTUAL, "churn"), ledger, Duration.ofSeconds(60));
        try (ExecutorService vt = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Integer>> clients = runClients(vt, l.port(), CLIENTS);
            // Shut down while connections are parked, parking, resuming and being served.
            await("connections parked", () -> ledger.parked.get() >= 20, () -> ledger.describe(l));
            l.drain(Duration.ofMillis(200)); // clean or not: what is checked is that each ends once
            for (Future<Integer> f : clients) {
                f.get(120, TimeUnit.SECONDS); // each ends: answered, or its connection closed by the drain
            }
            assertBalanced(ledger, l);
        } finally {
            l.close();
        }
    }
}
