package io.loomgate.proxy;

import java.nio.ByteBuffer;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * A small bounded pool of direct buffers for bulk body pieces ({@link BodyRelay}): a piece read from one plain socket
 * into a direct buffer and written from it to the other crosses the JVM without a copy (a heap array costs two: the
 * JDK reads into a temporary direct buffer and copies into the array, and back on the way out).
 *
 * <p>Memory: at most {@link #count()} buffers of {@link #SIZE} are ever allocated (made on demand, kept for reuse),
 * so direct memory, and RSS with it, stays flat however many bodies move at once. A buffer is held for one piece
 * only (one read and its write), so a relay waiting for a slow peer holds none. When all are in use a relay moves
 * its piece through a heap array, as before: slower, never stuck.
 */
final class DirectBuffers {
    /** One piece: larger than the JDK streams' 128 KiB, as a channel read has no such cap (docs/performance.md). */
    static final int SIZE = BodyRelay.DIRECT_BUFFER;

    private final int max;
    private final int size;
    private final ArrayBlockingQueue<ByteBuffer> free;
    private final AtomicInteger allocated = new AtomicInteger();
    /** Pieces lent so far (for tests: the direct path was taken). */
    private final LongAdder lent = new LongAdder();

    /** The gateway's: two per core (a relay busy on each, one more waiting on a write), 4 to 32: 2 to 16 MiB. */
    static final DirectBuffers SHARED = new DirectBuffers(
            Math.clamp(2L * Runtime.getRuntime().availableProcessors(), 4, 32), SIZE);

    DirectBuffers(int max, int size) {
        this.max = max;
        this.size = size;
        this.free = new ArrayBlockingQueue<>(max);
    }

    /** A cleared buffer, or null when all {@link #count()} are in use (the caller falls back to a heap array). */
    ByteBuffer take() {
        ByteBuffer b = poll();
        if (b != null) {
            lent.increment();
        }
        return b;
    }

    private ByteBuffer poll() {
        ByteBuffer b = free.poll();
        if (b != null) {
            return b;
        }
        while (true) {
            int n = allocated.get();
            if (n >= max) {
                return free.poll(); // one may have come back meanwhile
            }
            if (allocated.compareAndSet(n, n + 1)) {
                try {
                    return ByteBuffer.allocateDirect(size);
                } catch (OutOfMemoryError e) { // MaxDirectMemorySize reached by others: this piece uses the heap
                    allocated.decrementAndGet();
                    return null;
                }
            }
        }
    }

    /** Gives a buffer from {@link #take()} back, cleared. */
    void give(ByteBuffer b) {
        b.clear();
        free.offer(b); // never full: only taken buffers come back
    }

    /** The most buffers ever allocated. */
    int count() {
        return max;
    }

    /** Buffers allocated so far (for tests: the bound holds). */
    int allocated() {
        return allocated.get();
    }

    long lent() {
        return lent.sum();
    }

    int size() {
        return size;
    }
}
