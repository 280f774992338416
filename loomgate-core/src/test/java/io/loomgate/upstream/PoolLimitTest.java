package io.loomgate.upstream;

import static io.loomgate.upstream.TestPools.within;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.testkit.CountingServer;
import io.loomgate.threads.ConnectionExecutors;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** max-connections bounds idle + in use; beyond it acquire waits for a release, and fails at its deadline. */
class PoolLimitTest {
    private final AtomicLong clock = new AtomicLong();
    private final RecordingPoolListener listener = new RecordingPoolListener();
    private CountingServer server;
    private UpstreamPool pool;

    @BeforeEach
    void start() throws Exception {
        server = new CountingServer();
        pool = TestPools.pool(server, TestPools.settings(2, 2), listener, clock);
    }

    @AfterEach
    void stop() throws Exception {
        pool.close();
        server.close();
    }

    @Test
    void releasedConnectionsGoToWaitersInArrivalOrderAndNewcomersQueueBehind() throws Exception {
        PooledConnection a = pool.acquire(within(Duration.ofSeconds(5)), false);
        PooledConnection b = pool.acquire(within(Duration.ofSeconds(5)), false);
        CompletableFuture<PooledConnection> first = new CompletableFuture<>();
        CompletableFuture<PooledConnection> second = new CompletableFuture<>();
        Thread t1 = ConnectionExecutors.startVirtual("first", () -> acquireInto(first, Duration.ofSeconds(10)));
        awaitWaiting(t1);
        Thread t2 = ConnectionExecutors.startVirtual("second", () -> acquireInto(second, Duration.ofSeconds(10)));
        awaitWaiting(t2);

        pool.release(a);
        // This thread asks at once, before the woken waiter has even run: with barging it would take 'a'. The
        // connection was handed to the first waiter instead, and the newcomer queues behind 'second'.
        assertThatThrownBy(() -> pool.acquire(within(Duration.ofMillis(50)), false))
                .isInstanceOf(PoolExhaustedException.class);
        assertThat(first.get(10, TimeUnit.SECONDS)).isSameAs(a);
        assertThat(second).isNotDone();

        pool.release(b);
        assertThat(second.get(10, TimeUnit.SECONDS)).isSameAs(b);
    }

    private void acquireInto(CompletableFuture<PooledConnection> into, Duration within) {
        try {
            into.complete(pool.acquire(within(within), false));
        } catch (Throwable e) {
            into.completeExceptionally(e);
        }
    }

    @Test
    void waiterGetsTheConnectionReleasedByAnotherThread() throws Exception {
        PooledConnection a = pool.acquire(within(Duration.ofSeconds(5)), false);
        pool.acquire(within(Duration.ofSeconds(5)), false);
        CompletableFuture<PooledConnection> waiter = new CompletableFuture<>();
        Thread thread = ConnectionExecutors.startVirtual("waiter", () -> {
            try {
                waiter.complete(pool.acquire(within(Duration.ofSeconds(10)), false));
            } catch (Throwable e) {
                waiter.completeExceptionally(e);
            }
        });
        awaitWaiting(thread);
        assertThat(waiter).isNotDone();

        pool.release(a);

        assertThat(waiter.get(10, TimeUnit.SECONDS)).isSameAs(a);
        assertThat(pool.connectCount()).isEqualTo(2);
        assertThat(pool.inUseCount()).isEqualTo(2);
    }

    @Test
    void discardFreesASlotForAWaiter() throws Exception {
        PooledConnection a = pool.acquire(within(Duration.ofSeconds(5)), false);
        pool.acquire(within(Duration.ofSeconds(5)), false);
        CompletableFuture<PooledConnection> waiter = new CompletableFuture<>();
        Thread thread = ConnectionExecutors.startVirtual("waiter", () -> {
            try {
                waiter.complete(pool.acquire(within(Duration.ofSeconds(10)), false));
            } catch (Throwable e) {
                waiter.completeExceptionally(e);
            }
        });
        awaitWaiting(thread);

        pool.discard(a);

        PooledConnection dialled = waiter.get(10, TimeUnit.SECONDS);
        assertThat(dialled).isNotSameAs(a);
        assertThat(dialled.reused()).isFalse();
        assertThat(pool.connectCount()).isEqualTo(3);
    }

    @Test
    void fullPoolFailsAtTheDeadline() throws Exception {
        pool.acquire(within(Duration.ofSeconds(5)), false);
        pool.acquire(within(Duration.ofSeconds(5)), false);

        assertThatThrownBy(() -> pool.acquire(within(Duration.ofMillis(50)), false))
                .isInstanceOf(PoolExhaustedException.class)
                .hasMessageStartingWith("no connection to " + server.host() + ":" + server.port() + " free within ")
                .hasMessageEndingWith("ms (max-connections 2)");
        assertThat(pool.inUseCount()).isEqualTo(2);
        assertThat(server.count()).isLessThanOrEqualTo(2);
    }

    @Test
    void freshAcquireInAFullPoolReplacesTheOldestIdleConnection() throws Exception {
        PooledConnection a = pool.acquire(within(Duration.ofSeconds(5)), false);
        PooledConnection b = pool.acquire(within(Duration.ofSeconds(5)), false);
        pool.release(a);
        pool.release(b);

        PooledConnection fresh = pool.acquire(within(Duration.ofMillis(50)), true);

        assertThat(fresh).isNotSameAs(a).isNotSameAs(b);
        assertThat(a.socket().isClosed()).isTrue();
        assertThat(b.socket().isClosed()).isFalse();
        assertThat(pool.idleCount()).isEqualTo(1);
        assertThat(listener.events).contains("evicted:replaced");
    }

    /** Polls until the thread parks inside acquire (waiting on the pool's condition). */
    private static void awaitWaiting(Thread thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING) {
            assertThat(System.nanoTime()).as("waiter parked in time").isLessThan(deadline);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }
}
