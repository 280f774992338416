package io.loomgate.tls;

import java.nio.ByteBuffer;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Recycles the record-sized buffers an {@link EngineChannel} borrows for each read and write. The engine wants room
 * for a whole record (about 16.7 KB) on either side of every call, and a connection keeps no buffer between calls
 * (an idle connection must hold none), so without recycling every TLS read and write would allocate and zero 17 KB.
 * Bounded: at most {@link #CAPACITY} buffers (4.3 MiB) wait here; beyond that they are left to the collector. Never
 * waits for a buffer or for room: an empty pool allocates, a full one drops.
 *
 * <p>A second, smaller pool holds {@link #BULK_SIZE} buffers for the ciphertext of a client that sends faster than
 * the gateway reads (an upload): one socket read takes several records, where a record-sized buffer took one per
 * read (issue 34). Such a buffer is lent only while that client is sending in bulk, and given back like the others.
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
    /**
     * Ciphertext read at once from a bulk sender: eight records, so that one read fills a body relay's largest
     * buffer (128 KiB of plaintext, BodyRelay.MAX_BUFFER) and a bulk upload costs about 8 reads per MB, not 64.
     */
    static final int BULK_SIZE = 8 * SIZE;
    /** At most this many bulk buffers wait here (2.1 MiB): uploads at once on a gateway are few. */
    static final int BULK_CAPACITY = 16;

    /**
     * At most this many direct record buffers exist (1.1 MiB of native memory): one is lent for a write only, and
     * writes at once are few (the carriers'), but for writers blocked on clients that do not read; past the bound
     * a write takes a heap buffer, so native memory stays bounded whatever the clients do.
     */
    static final int DIRECT_CAPACITY = 64;

    private static final ArrayBlockingQueue<byte[]> FREE = new ArrayBlockingQueue<>(CAPACITY);
    private static final ArrayBlockingQueue<byte[]> FREE_BULK = new ArrayBlockingQueue<>(BULK_CAPACITY);
    private static final ArrayBlockingQueue<ByteBuffer> FREE_DIRECT = new ArrayBlockingQueue<>(DIRECT_CAPACITY);
    /** Direct buffers made so far; never more than {@link #DIRECT_CAPACITY}, and none is ever dropped. */
    private static final AtomicInteger DIRECT_MADE = new AtomicInteger();

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

    /** A buffer of {@link #BULK_SIZE} bytes, recycled when one waits. */
    static byte[] takeBulk() {
        byte[] recycled = FREE_BULK.poll();
        return recycled != null ? recycled : new byte[BULK_SIZE];
    }

    /**
     * A direct record buffer, cleared, or null when all {@link #DIRECT_CAPACITY} are lent (the caller then takes a
     * heap one). For an engine that encrypts into native memory (Conscrypt's): its ciphertext goes straight into the
     * buffer and from there to the socket, where a heap buffer costs two copies through direct buffers on the way
     * (the engine's own, then the JDK's socket write).
     */
    static ByteBuffer takeDirect() {
        ByteBuffer recycled = FREE_DIRECT.poll();
        if (recycled != null) {
            return recycled.clear();
        }
        int made = DIRECT_MADE.get();
        while (made < DIRECT_CAPACITY) {
            if (DIRECT_MADE.compareAndSet(made, made + 1)) {
                return ByteBuffer.allocateDirect(SIZE);
            }
            made = DIRECT_MADE.get();
        }
        return null;
    }

    /** Hands a direct buffer from {@link #takeDirect()} back; the caller must not touch it afterwards. */
    static void giveDirect(ByteBuffer buffer) {
        FREE_DIRECT.offer(buffer); // never full: it holds at most the buffers made
    }

    /** Hands a buffer back; the caller must not touch it afterwards. */
    static void give(byte[] buffer) {
        if (buffer.length == SIZE) {
            FREE.offer(buffer);
        } else if (buffer.length == BULK_SIZE) {
            FREE_BULK.offer(buffer);
        }
    }
}
