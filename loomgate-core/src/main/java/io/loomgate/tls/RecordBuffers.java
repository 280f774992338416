package io.loomgate.tls;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Recycles the record-sized buffers an {@link EngineChannel} borrows for each read and write. The engine wants room
 * for a whole record (about 16.7 KB) on either side of every call, and a connection keeps no buffer between calls
 * (an idle connection must hold none), so without recycling every TLS read and write would allocate and zero 17 KB.
 * Bounded: at most {@link #CAPACITY} buffers (4.3 MiB) wait here; beyond that they are left to the collector.
 * Thread-safe and never blocking: when the lock is contended, take allocates and give drops, which is always
 * correct, only less thrifty. (The same shape as http1's pool of head-sized buffers, which this package may not use.)
 *
 * <p>A recycled buffer holds another connection's old bytes, plaintext included; its new owner only ever reads what
 * it wrote (the buffer's position and limit say where), so nothing leaks between connections.
 */
final class RecordBuffers {
    /**
     * The size recycled: a TLS record at its largest (RFC 8446 §5.2: 2^14 + 256 bytes and the 5-byte header, which
     * JSSE reports as 16,709) with room to spare. A session that asks for more (JSSE's large-fragment mode) gets
     * buffers of its own size, not recycled.
     */
    static final int SIZE = 17 * 1024;
    static final int CAPACITY = 256;

    private static final ReentrantLock LOCK = new ReentrantLock();
    private static final byte[][] FREE = new byte[CAPACITY][];
    private static int count; // guarded by LOCK

    private RecordBuffers() {
    }

    /** A buffer of at least {@code size} bytes: a recycled one when {@code size} fits the standard size. */
    static byte[] take(int size) {
        if (size > SIZE) {
            return new byte[size];
        }
        byte[] recycled = takeRecycled();
        return recycled != null ? recycled : new byte[SIZE];
    }

    /**
     * A recycled standard-size buffer, or null when none waits here (or the lock is contended): for a reader that
     * would rather wait without one than allocate (see {@link EngineChannel}).
     */
    static byte[] takeRecycled() {
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
    static void give(byte[] buffer) {
        if (buffer.length != SIZE || !LOCK.tryLock()) {
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
