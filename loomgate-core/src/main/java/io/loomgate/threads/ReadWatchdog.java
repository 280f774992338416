package io.loomgate.threads;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * The one daemon thread that enforces {@link WatchedInputStream} deadlines for the whole process. Every open watched
 * stream is in its set, from construction to close; a tick reads one volatile deadline per stream: for 10,000
 * keep-alive connections and their upstream connections, about 20,000 reads every {@value #TICK_MILLIS} ms.
 */
final class ReadWatchdog {
    static final long TICK_MILLIS = 20;

    private static final Set<WatchedInputStream> READING = ConcurrentHashMap.newKeySet();
    private static final AtomicBoolean STARTED = new AtomicBoolean();

    private ReadWatchdog() {
    }

    static void watch(WatchedInputStream in) {
        READING.add(in);
        if (!STARTED.get() && STARTED.compareAndSet(false, true)) {
            ConnectionExecutors.startDaemon("read-watchdog", ReadWatchdog::loop);
        }
    }

    static void unwatch(WatchedInputStream in) {
        READING.remove(in);
    }

    private static void loop() {
        long tick = TimeUnit.MILLISECONDS.toNanos(TICK_MILLIS);
        while (true) {
            LockSupport.parkNanos(tick);
            long now = System.nanoTime();
            for (WatchedInputStream in : READING) {
                in.cutIfOverdue(now);
            }
        }
    }
}
