package io.loomgate.tls;

import java.util.concurrent.ArrayBlockingQueue;

/**
 * Recycles the record-sized buffers an {@link EngineChannel} borrows for each read and write. The engine wants room
 * for a whole record (about 16.7 KB) on either side of every call, and a connection keeps no buffer between calls
 * (an idle connection must hold none), so without recycling every TLS read and write would allocate and zero 17 KB.
 * Bounded: at most {@link #CAPACITY} buffers (4.3 MiB) wait here; beyond that they are left to the collector. Never
 * waits for a buffer or for room: an empty pool allocates, a full one drops.
 *
 * <p>A recycled buffer holds another connection's old bytes; its new owner only ever reads what it wrote (the
 * buffer's position and limit say where), so nothing leaks between connections, and plaintext is wiped before it
 * comes back here ({@link EngineChannel}).
 */
final class RecordBuffers {
    /**
     * The size recycled: a TLS record at its largest (RFC 8446 §5.2: 2^14 + 256 bytes and the 5-byte header, which
     * JSSE reports as 16,709) with room to spare. A session that asks for more (JSSE's large-fragment mode) gets
     * buffers of its own size, not recycled.
     */
    static final int SIZE = 17 * 1024;
    static final int CAPACITY = 256;

    private static final ArrayBlockingQueue<byte[]> FREE = new ArrayBlockingQueue<>(CAPACITY);

    private RecordBuffers() {
    }

    /** A buffer of at least {@code size} bytes: a recycled one when {@code size} fits the standard size. */
    static byte[] take(int size) {
        if (size > SIZE) {
            return new byte[size];
        }
        byte[] recycled = FREE.poll();
        return recycled != null ? recycled : new byte[SIZE];
    }

    /**
     * A recycled standard-size buffer, or null when none waits here: for a reader that would rather wait without one
     * than allocate (see {@link EngineChannel}).
     */
    static byte[] takeRecycled() {
        return FREE.poll();
    }

    /** Hands a buffer back; the caller must not touch it afterwards. */
    static void give(byte[] buffer) {
        if (buffer.length == SIZE) {
            FREE.offer(buffer);
        }
    }
}
