package io.loomgate.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/** The pool's line of waiters: first come, first served, and nothing handed to someone who left. */
class WaiterQueueTest {
    private final ReentrantLock lock = new ReentrantLock();
    private final WaiterQueue<String> queue = new WaiterQueue<>(lock);

    @Test
    void itemsAndSlotsGoToTheOldestWaiter() {
        lock.lock();
        try {
            WaiterQueue.Ticket<String> first = queue.join();
            WaiterQueue.Ticket<String> second = queue.join();

            assertThat(queue.handItem("conn-1")).isTrue();
            assertThat(first.item()).isEqualTo("conn-1");
            assertThat(second.wasServed()).isFalse();

            assertThat(queue.handSlot()).isTrue();
            assertThat(second.hasSlot()).isTrue();
            assertThat(second.item()).isNull();

            assertThat(queue.isEmpty()).isTrue();
            assertThat(queue.handItem("conn-2")).as("nobody waits").isFalse();
            assertThat(queue.handSlot()).isFalse();
        } finally {
            lock.unlock();
        }
    }

    @Test
    void aWaiterThatLeftIsPassedOver() {
        lock.lock();
        try {
            WaiterQueue.Ticket<String> gaveUp = queue.join();
            WaiterQueue.Ticket<String> stays = queue.join();
            queue.leave(gaveUp);

            queue.handItem("conn");

            assertThat(gaveUp.wasServed()).isFalse();
            assertThat(stays.item()).isEqualTo("conn");
        } finally {
            lock.unlock();
        }
    }

    @Test
    void whatALeaverHadBeenHandedCanBeReclaimed() {
        lock.lock();
        try {
            WaiterQueue.Ticket<String> withItem = queue.join();
            WaiterQueue.Ticket<String> withSlot = queue.join();
            queue.handItem("conn");
            queue.handSlot();

            assertThat(queue.reclaimItem(withItem)).isEqualTo("conn");
            assertThat(withItem.wasServed()).isFalse();
            assertThat(queue.reclaimSlot(withSlot)).isTrue();
            assertThat(queue.reclaimSlot(withSlot)).as("only once").isFalse();
            assertThat(queue.reclaimItem(withSlot)).isNull();
        } finally {
            lock.unlock();
        }
    }

    @Test
    void aFailedDialAnswersEveryWaiterWithAFailureOfItsOwn() {
        lock.lock();
        try {
            WaiterQueue.Ticket<String> first = queue.join();
            WaiterQueue.Ticket<String> second = queue.join();
            SocketTimeoutException dial = new SocketTimeoutException("connect to x timed out");

            assertThat(queue.failAll(() -> WaiterFailure.of(dial))).isEqualTo(2);

            assertThat(queue.isEmpty()).isTrue();
            for (WaiterQueue.Ticket<String> t : List.of(first, second)) {
                assertThat(t.wasServed()).isTrue();
                assertThat(t.item()).isNull();
                assertThat(t.hasSlot()).isFalse();
                assertThat(t.failure()).isInstanceOf(SocketTimeoutException.class)
                        .hasMessage("connect to x timed out").hasCause(dial);
            }
            assertThat(first.failure()).as("each waiter its own exception").isNotSameAs(second.failure());
            assertThat(queue.failAll(() -> WaiterFailure.of(dial))).as("nobody waits").isZero();
        } finally {
            lock.unlock();
        }
    }

    @Test
    void anUnservedWaitEndsWhenItsTimeIsUp() throws InterruptedException {
        lock.lock();
        try {
            WaiterQueue.Ticket<String> t = queue.join();
            long start = System.nanoTime();
            queue.await(t, TimeUnit.MILLISECONDS.toNanos(20));
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(15));
            assertThat(t.wasServed()).isFalse();
        } finally {
            lock.unlock();
        }
    }

    @Test
    void parkedWaitersAreServedInArrivalOrder() throws Exception {
        Map<String, String> got = new ConcurrentHashMap<>();
        List<Thread> threads = new ArrayList<>();
        for (String name : List.of("a", "b", "c")) {
            int before = size();
            threads.add(Thread.ofVirtual().start(() -> got.put(name, waitForItem())));
            awaitTrue(() -> size() == before + 1, name + " in line"); // each joins after the one before
        }

        for (String item : List.of("conn-1", "conn-2", "conn-3")) {
            lock.lock();
            try {
                queue.handItem(item);
            } finally {
                lock.unlock();
            }
        }
        for (Thread t : threads) {
            assertThat(t.join(Duration.ofSeconds(10))).isTrue();
        }
        assertThat(got).containsExactlyInAnyOrderEntriesOf(Map.of("a", "conn-1", "b", "conn-2", "c", "conn-3"));
    }

    @Test
    void wakeAllWakesEveryParkedWaiterUnserved() throws Exception {
        List<Thread> threads = new ArrayList<>();
        List<Boolean> served = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int i = 0; i < 2; i++) {
            threads.add(Thread.ofVirtual().start(() -> {
                lock.lock();
                try {
                    WaiterQueue.Ticket<String> t = queue.join();
                    queue.await(t, TimeUnit.SECONDS.toNanos(30));
                    queue.leave(t);
                    served.add(t.wasServed());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    lock.unlock();
                }
            }));
        }
        awaitTrue(() -> size() == 2, "both in line");
        lock.lock();
        try {
            queue.wakeAll();
        } finally {
            lock.unlock();
        }
        for (Thread t : threads) {
            assertThat(t.join(Duration.ofSeconds(10))).as("woken long before its 30 s").isTrue();
        }
        assertThat(served).containsExactly(false, false);
    }

    private String waitForItem() {
        lock.lock();
        try {
            WaiterQueue.Ticket<String> t = queue.join();
            while (t.item() == null) {
                queue.await(t, TimeUnit.SECONDS.toNanos(30));
            }
            return t.item();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        } finally {
            lock.unlock();
        }
    }

    private int size() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 10 s: " + what);
            }
            Thread.sleep(5);
        }
    }
}
