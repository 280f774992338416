package io.loomgate.upstream;

import static io.loomgate.upstream.TestPools.within;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.http2.Http2Settings;
import io.loomgate.testkit.H2Origin;
import io.loomgate.threads.ConnectionExecutors;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The HTTP/2 pool waits in the same line as the HTTP/1.1 pool ({@link WaiterQueue}): a freed stream slot goes to
 * the oldest waiter, and a newcomer queues behind the waiters instead of taking the slot they were woken for.
 */
class Http2PoolFairnessTest {
    private final RecordingPoolListener listener = new RecordingPoolListener();
    private H2Origin origin;
    private UpstreamPool pool;

    @BeforeEach
    void start() throws Exception {
        // One connection, one stream at a time: every acquirer past the first waits for the one slot.
        origin = H2Origin.h2c(new Http2Settings(true, 1, 65_535, 100_000, 100, 50));
        PoolSettings settings = TestPools.settings(4, 4).withHttp2(false, 1);
        Endpoint endpoint = new Endpoint("127.0.0.1", origin.port(), false, true);
        pool = new UpstreamPool(new Connector(endpoint, settings, listener), settings, listener, System::nanoTime);
    }

    @AfterEach
    void stop() throws Exception {
        pool.close();
        origin.close();
    }

    @Test
    void freedSlotGoesToTheOldestWaiterAndNewcomersQueueBehind() throws Exception {
        Http2Pool.Lease held = (Http2Pool.Lease) pool.lease(within(Duration.ofSeconds(5)), false);
        CompletableFuture<ConnectionLease> first = new CompletableFuture<>();
        CompletableFuture<ConnectionLease> second = new CompletableFuture<>();
        Thread t1 = ConnectionExecutors.startVirtual("first", () -> leaseInto(first));
        awaitWaiting(t1);
        Thread t2 = ConnectionExecutors.startVirtual("second", () -> leaseInto(second));
        awaitWaiting(t2);

        held.connection().unreserve();
        // This thread asks at once, before the woken waiter has even run: with barging it would take the slot. The
        // slot was handed to the first waiter instead, and the newcomer queues behind 'second'.
        assertThatThrownBy(() -> pool.lease(within(Duration.ofMillis(50)), false))
                .isInstanceOf(PoolExhaustedException.class)
                .hasMessageStartingWith("no HTTP/2 stream to ");
        Http2Pool.Lease firstLease = (Http2Pool.Lease) first.get(10, TimeUnit.SECONDS);
        assertThat(firstLease.connection()).isSameAs(held.connection());
        assertThat(second).isNotDone();

        firstLease.connection().unreserve();
        assertThat(((Http2Pool.Lease) second.get(10, TimeUnit.SECONDS)).connection()).isSameAs(held.connection());
        assertThat(origin.connections()).isEqualTo(1);
    }

    private void leaseInto(CompletableFuture<ConnectionLease> into) {
        try {
            into.complete(pool.lease(within(Duration.ofSeconds(10)), false));
        } catch (Throwable e) {
            into.completeExceptionally(e);
        }
    }

    private static void awaitWaiting(Thread thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING) {
            assertThat(System.nanoTime()).as("waiter parked in time").isLessThan(deadline);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }
}
