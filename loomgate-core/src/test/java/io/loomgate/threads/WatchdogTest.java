package io.loomgate.threads;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Deadlines expire once, only when armed and past, on the watchdog's clock. */
class WatchdogTest {
    private final ManualClock clock = new ManualClock();
    private final Watchdog watchdog = Watchdog.driven(clock);
    private final AtomicInteger cuts = new AtomicInteger();

    @Test
    void anArmedDeadlineExpiresOnceWhenItsInstantPasses() {
        Deadline d = watchdog.deadline(cuts::incrementAndGet);
        d.armAfter(Duration.ofSeconds(5).toNanos());
        clock.advance(Duration.ofMillis(4999));
        assertThat(watchdog.check()).isZero();
        clock.advance(Duration.ofMillis(1));
        assertThat(watchdog.check()).isEqualTo(1);
        assertThat(watchdog.check()).isZero();
        assertThat(cuts).hasValue(1);
        assertThat(d.disarm()).as("the owner learns its operation was cut").isTrue();
    }

    @Test
    void aDeadlineDisarmedInTimeNeverFiresEvenLater() {
        Deadline d = watchdog.deadline(cuts::incrementAndGet);
        d.armAfter(1_000);
        assertThat(d.disarm()).isFalse();
        clock.advance(Duration.ofHours(1));
        assertThat(watchdog.check()).isZero();
        assertThat(cuts).hasValue(0);
    }

    @Test
    void anExpiryBelongsToTheArmingThatOverranNotTheNextOne() {
        Deadline d = watchdog.deadline(cuts::incrementAndGet);
        d.armAfter(10);
        clock.advance(Duration.ofNanos(10));
        watchdog.check();
        assertThat(d.disarm()).isTrue();
        d.armAfter(Duration.ofSeconds(1).toNanos());
        assertThat(watchdog.check()).as("re-armed for later: not due").isZero();
        assertThat(d.disarm()).isFalse();
        assertThat(cuts).hasValue(1);
    }

    @Test
    void closedDeadlinesAreNoLongerWatched() {
        Deadline a = watchdog.deadline(cuts::incrementAndGet);
        Deadline b = watchdog.deadline(cuts::incrementAndGet);
        assertThat(watchdog.watched()).isEqualTo(2);
        a.armAfter(1);
        a.close();
        a.close();
        clock.advance(Duration.ofSeconds(1));
        assertThat(watchdog.check()).isZero();
        b.close();
        assertThat(watchdog.watched()).isZero();
    }

    @Test
    void oneFailingActionDoesNotStopTheOthers() {
        Deadline failing = watchdog.deadline(() -> {
            throw new IllegalStateException("deliberately broken expiry action");
        });
        Deadline fine = watchdog.deadline(cuts::incrementAndGet);
        Thread me = Thread.currentThread();
        Thread.UncaughtExceptionHandler before = me.getUncaughtExceptionHandler();
        AtomicInteger reported = new AtomicInteger();
        me.setUncaughtExceptionHandler((t, e) -> reported.incrementAndGet());
        try {
            failing.armAfter(1);
            fine.armAfter(1);
            clock.advance(Duration.ofSeconds(1));
            watchdog.check();
        } finally {
            me.setUncaughtExceptionHandler(before);
        }
        assertThat(cuts).hasValue(1);
        assertThat(reported).as("the failure is reported, not swallowed").hasValue(1);
    }

    @Test
    void aStartedWatchdogChecksOnItsOwnThreadUntilClosed() throws InterruptedException {
        CountDownLatch expired = new CountDownLatch(1);
        try (Watchdog started = Watchdog.start("test-watchdog", Duration.ofMillis(10))) {
            Deadline d = started.deadline(expired::countDown);
            d.armAt(started.clock().nanoTime());
            assertThat(expired.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(d.disarm()).isTrue();
        }
    }

    @Test
    void aStartedWatchdogCutsADeadlineWhenDueNotAtItsNextTick() throws InterruptedException {
        // Session 55: the thread sleeps until the earliest armed deadline, so its tick only bounds a missed race. With
        // a tick of an hour, the thread that looked every tick would not cut this deadline within the test's wait.
        CountDownLatch expired = new CountDownLatch(1);
        try (Watchdog started = Watchdog.start("test-watchdog-due", Duration.ofHours(1))) {
            Deadline d = started.deadline(expired::countDown);
            long armedAt = started.clock().nanoTime();
            d.armAfter(Duration.ofMillis(50).toNanos());
            assertThat(expired.await(30, TimeUnit.SECONDS)).as("cut when due, not an hour later").isTrue();
            assertThat(started.clock().nanoTime() - armedAt).as("not before it was due")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(50).toNanos());
            assertThat(d.disarm()).isTrue();
        }
    }

    @Test
    void deadlinesArmedWhileTheWatchdogLooksAreCutToo() throws InterruptedException {
        // Owners arm short deadlines at random instants, many while the thread is looking at the others: each must be
        // cut (an arming the look missed moves the planned wake-up forward), with an hour's tick as no backstop.
        int owners = 4;
        int rounds = 200;
        try (Watchdog started = Watchdog.start("test-watchdog-race", Duration.ofHours(1))) {
            List<Thread> threads = new ArrayList<>();
            AtomicInteger cut = new AtomicInteger();
            for (int i = 0; i < owners; i++) {
                threads.add(Thread.ofVirtual().start(() -> {
                    for (int r = 0; r < rounds; r++) {
                        Semaphore done = new Semaphore(0);
                        Deadline d = started.deadline(done::release);
                        d.armAfter(ThreadLocalRandom.current().nextLong(2_000_000));
                        try {
                            if (done.tryAcquire(30, TimeUnit.SECONDS)) {
                                cut.incrementAndGet();
                            }
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return;
                        }
                        d.disarm();
                        d.close();
                    }
                }));
            }
            for (Thread t : threads) {
                assertThat(t.join(Duration.ofSeconds(120))).isTrue();
            }
            assertThat(cut).hasValue(owners * rounds);
        }
    }

    @Test
    void theSharedWatchdogRunsOnTheSystemClockAndCannotBeClosed() {
        assertThat(Watchdog.shared()).isSameAs(Watchdog.shared());
        assertThat(Watchdog.shared().clock()).isSameAs(NanoClock.SYSTEM);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Watchdog.shared().close())
                .isInstanceOf(IllegalStateException.class);
    }
}
