package io.loomgate.testkit;

import io.loomgate.threads.NanoClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves only when a test says so, for watchdogs driven by hand. Starts far from zero on purpose. */
public final class ManualClock implements NanoClock {
    private final AtomicLong now = new AtomicLong(1_000_000_000_000L);

    @Override
    public long nanoTime() {
        return now.get();
    }

    public void advance(Duration d) {
        now.addAndGet(d.toNanos());
    }
}
