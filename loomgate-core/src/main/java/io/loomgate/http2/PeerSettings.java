package io.loomgate.http2;

import java.util.Collection;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * What the peer's SETTINGS bind this side to, either role (RFC 9113 §6.5.2): the largest frame it takes, how many
 * streams it lets this side open, its initial stream window (moved into the {@link SendWindow}), and whether its
 * first SETTINGS came. Applied by the reader under the writer's lock (see {@link FrameWriter#applyAndAcknowledge}) and
 * the connection's lock; read by any thread.
 */
final class PeerSettings {
    private final ReentrantLock lock;
    private final Condition arrived;
    private final SendWindow sendWindow;
    /** Volatile, besides written under the lock: every DATA frame written asks, and the lock is contended. */
    private volatile int maxFrameSize = Frames.DEFAULT_MAX_FRAME_SIZE;
    /** Volatile, besides written under the lock: the pool asks while choosing a connection. */
    private volatile int maxConcurrentStreams;
    // guarded by lock
    private boolean received;

    /** @param assumedMaxConcurrentStreams the stream limit until the peer says (RFC 9113 leaves it unlimited) */
    PeerSettings(ReentrantLock lock, SendWindow sendWindow, int assumedMaxConcurrentStreams) {
        this.lock = lock;
        this.arrived = lock.newCondition();
        this.sendWindow = sendWindow;
        this.maxConcurrentStreams = assumedMaxConcurrentStreams;
    }

    /**
     * Applies a SETTINGS payload, valid (the reader checked), in order (RFC 9113 §6.5.3). {@code open} lists the open
     * streams' send windows; asked only when the initial window changes.
     */
    void apply(byte[] payload, Supplier<Collection<SendWindow.Stream>> open) throws Http2Exception {
        lock.lock();
        try {
            FrameReader.forEachSetting(payload, (key, value) -> {
                switch (key) {
                    case Frames.SETTINGS_MAX_CONCURRENT_STREAMS ->
                            maxConcurrentStreams = (int) Math.min(value, Integer.MAX_VALUE);
                    case Frames.SETTINGS_INITIAL_WINDOW_SIZE -> sendWindow.initialChanged((int) value, open.get());
                    case Frames.SETTINGS_MAX_FRAME_SIZE -> maxFrameSize = (int) value;
                    default -> {
                        // HEADER_TABLE_SIZE: our encoder uses no dynamic table; the rest are advisory or unknown
                    }
                }
            });
            received = true;
            arrived.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** SETTINGS_MAX_FRAME_SIZE: the largest frame payload the peer takes. */
    int maxFrameSize() {
        return maxFrameSize;
    }

    /** SETTINGS_MAX_CONCURRENT_STREAMS, or the assumed limit until the peer says. */
    int maxConcurrentStreams() {
        return maxConcurrentStreams;
    }

    /** Under the lock: whether the peer's first SETTINGS came. */
    boolean receivedLocked() {
        return received;
    }

    /** Under the lock: waits for the first SETTINGS (or {@link #wakeLocked}) at most {@code nanos}. */
    void awaitLocked(long nanos) throws InterruptedException {
        arrived.awaitNanos(nanos);
    }

    /** Under the lock: wakes a thread waiting for the first SETTINGS (the connection died). */
    void wakeLocked() {
        arrived.signalAll();
    }
}
