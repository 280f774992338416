package io.loomgate.threads;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.ManualClock;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
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
    void theSharedWatchdogRunsOnTheSystemClockAndCannotBeClosed() {
        assertThat(Watchdog.shared()).isSameAs(Watchdog.shared());
        assertThat(Watchdog.shared().clock()).isSameAs(NanoClock.SYSTEM);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Watchdog.shared().close())
                .isInstanceOf(IllegalStateException.class);
    }
}
