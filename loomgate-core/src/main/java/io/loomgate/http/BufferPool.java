package io.loomgate.http;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Recycles the standard-size read and write buffers of connections: HTTP/1.1's heads and bodies on both sides of the
 * proxy, and HTTP/2's burst reads and frame batches. An idle keep-alive connection holds no buffer, so without
 * recycling every request would allocate and zero a fresh read buffer and write buffer on each side of the proxy:
 * 16-32 KiB per request, most of the allocation rate. Bounded: at most {@link #CAPACITY} buffers wait
 * here (8 MiB); beyond that they are left to the collector. Thread-safe and never blocking: when the lock is
 * contended, take allocates and give drops, which is always correct, only less thrifty.
 *
 * <p>A recycled buffer holds another connection's old bytes; its new owner only ever reads what it wrote (its
 * position and limit say where), so nothing leaks between connections.
 */
public final class BufferPool {
    /**
     * The size recycled; buffers of any other size (grown for a large head) are not. Connections size their
     * HttpInput and HttpOutput with it, or their buffers would never be recycled.
     */
    public static final int SIZE = 8192;
    static final int CAPACITY = 1024;

    private static final ReentrantLock LOCK = new ReentrantLock();
    private static final byte[][] FREE = new byte[CAPACITY][];
    private static int count; // guarded by LOCK

    private BufferPool() {
    }

    /** A buffer of {@code size} bytes, recycled when it is the standard size. */
    public static byte[] take(int size) {
        byte[] recycled = size == SIZE ? takeRecycled() : null;
        return recycled != null ? recycled : new byte[size];
    }

    /**
     * A recycled standard-size buffer, or null when none waits here (or the lock is contended): for a holder that
     * would rather do without than allocate (see {@code HttpInput.awaitDataBuffered}).
     */
    public static byte[] takeRecycled() {
        if (!LOCK.tryLock()) {
            return null;
        }
        try {
            if (count == 0) {
                return null;
            }
            byte[] b = FREE[--count];
            FREE[count] = null;
            return b;
        } finally {
            LOCK.unlock();
        }
    }

    /** Hands a buffer back; the caller must not touch it afterwards. */
    public static void give(byte[] buffer) {
        if (buffer == null || buffer.length != SIZE || !LOCK.tryLock()) {
            return;
        }
        try {
            if (count < CAPACITY) {
                FREE[count++] = buffer;
            }
        } finally {
            LOCK.unlock();
        }
    }
}
