package io.loomgate.proxy;

import io.loomgate.http1.BodyInputStream;
import io.loomgate.server.ServerExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * Copies a body from one side to the other, flushing whenever nothing more is waiting, so each piece the sender
 * produced (an SSE event, a long-poll answer) reaches the receiver at once. Read and write failures are told apart,
 * because they are different sides' faults: which one decides the status and the log level.
 *
 * <p>Memory: a buffer is held only while bytes move. A sender whose reads have to wait (a slow upload, a trickling
 * origin, thousands of slow-body attackers) is relayed with a small buffer that is dropped whenever it has caught up,
 * and is then waited for with no buffer at all ({@link BodyInputStream#awaitData()}); a sender that fills its buffer
 * gets a larger one, up to {@link #MAX_BUFFER}, for few system calls on bulk transfers.
 *
 * <p>Bulk between plain sockets: once the sender fills the largest heap buffer, and when both sides can (a body
 * read as it is, fixed length or until close, from a plain socket, to a plain HTTP/1.1 client as it is), each piece
 * goes through a direct buffer of {@link DirectBuffers} instead: read from one socket's channel, written to the
 * other's, no copy in the JVM (a heap array costs two per byte: the JDK stages it through a temporary direct
 * buffer both ways). The direct buffer is held for one piece only; when the pool is all in use the piece goes
 * through the heap as before. The deadlines are the same: the channels' reads and writes are armed like the
 * streams' (WatchedInputStream, WatchedOutputStream).
 */
final class BodyRelay {
    /**
     * Largest buffer, for bulk transfers: few system calls per megabyte. 128 KiB because the JDK's socket streams
     * move at most that much per system call (NioSocketImpl's MAX_BUFFER_SIZE): 64 KiB took 16 reads and 16 writes
     * per MB through the proxy, 128 KiB takes 8.5 of each, 256 KiB no fewer (docs/performance.md, issue 15).
     */
    static final int MAX_BUFFER = 128 * 1024;
    /**
     * A bulk piece through a direct buffer. A channel read has no 128 KiB cap, and larger pieces pay: per MB relayed,
     * 128 KiB took 20 system calls, 256 KiB 13-14, 512 KiB 10-11, 1 MiB 8-9 with no less CPU than 512 KiB
     * (docs/performance.md, W4).
     */
    static final int DIRECT_BUFFER = 512 * 1024;
    /** For a tunnel's pipes (unknown length): big enough for bulk, small enough for many at once. */
    static final int UNKNOWN_LENGTH_BUFFER = 16 * 1024;
    /** First buffer, and the size used for slow senders. */
    static final int FIRST_BUFFER = 8 * 1024;
    /** A read that waited longer than this marks the sender as slow until it fills a buffer again. */
    static final long SLOW_READ_NANOS = 50_000_000L;

    private BodyRelay() {
    }

    /** What failed while relaying. */
    static final class ReadFailed extends IOException {
        private long copied;

        ReadFailed(IOException cause) {
            super(cause.getMessage(), cause);
        }

        /** @param copied the bytes relayed before the read failed: the receiver has them */
        ReadFailed(IOException cause, long copied) {
            this(cause);
            this.copied = copied;
        }

    }

    static final class WriteFailed extends IOException {
        private long copied;

        WriteFailed(IOException cause) {
            super(cause.getMessage(), cause);
        }

        /** @param copied the bytes whole writes had relayed before this one failed */
        WriteFailed(IOException cause, long copied) {
            this(cause);
            this.copied = copied;
        }
    }

    /**
     * Bytes a {@link #copy} had written before {@code e} ended it (0 for a failure that did not come from one): the
     * receiver has them, so the access log and the bytes-out counter count them.
     */
    static long copiedBefore(IOException e) {
        return switch (e) {
            case ReadFailed r -> r.copied;
            case WriteFailed w -> w.copied;
            default -> 0;
        };
    }

    /**
     * Copies until the body ends; returns the bytes copied. {@code length} is the body's length when known, -1
     * otherwise (it only sizes the buffers). Throws {@link ReadFailed} or {@link WriteFailed} around the cause, so
     * the caller can blame the right side.
     */
    static long copy(BodyInputStream from, OutputStream to, long length) throws IOException {
        return copy(from, to, length, DirectBuffers.SHARED);
    }

    /** {@link #copy(BodyInputStream, OutputStream, long)} with bulk pieces through {@code directs} when possible. */
    static long copy(BodyInputStream from, OutputStream to, long length, DirectBuffers directs) throws IOException {
        long sentBefore = sent(to);
        try {
            return relay(from, to, length, directs);
        } catch (WriteFailed e) {
            // An HTTP/2 stream the client stopped reading: the write that failed had sent part of its bytes (as far
            // as the window allowed), and the client has them; count what left as DATA rather than whole writes.
            long sent = sent(to);
            if (sentBefore >= 0 && sent >= 0) {
                e.copied = sent - sentBefore;
            }
            throw e;
        }
    }

    /** The body bytes that left through {@code to}, when it can tell them; -1 otherwise. */
    private static long sent(OutputStream to) {
        return to instanceof ServerExchange.ResponseBody body ? body.sent() : -1;
    }

    /**
     * The copy proper. A failure carries the bytes relayed before it ({@link ReadFailed}, {@link WriteFailed}): the
     * sender failed mid-body (an origin that closed short of its Content-Length, reset its stream) or the receiver
     * went away, and what was relayed before reached the receiver, so it is counted, not lost. Set where each is
     * thrown, not kept in a progress array beside the loop (25 B a body, session 60).
     */
    private static long relay(BodyInputStream from, OutputStream to, long length, DirectBuffers directs)
            throws IOException {
        ServerExchange.ResponseBody direct = from.readsDirect() && to instanceof ServerExchange.ResponseBody body
                && body.writesDirect() ? body : null;
        long total = 0;
        int size = length >= 0 && length < FIRST_BUFFER ? (int) Math.max(length, 1) : FIRST_BUFFER;
        byte[] buffer = null;
        boolean slow = true; // until the sender shows it keeps up, its first byte is awaited without a buffer
        while (true) {
            if (direct != null && size == MAX_BUFFER) { // a bulk sender: try the piece without the heap
                ByteBuffer piece = directs.take();
                if (piece != null) {
                    int n;
                    long waited;
                    boolean caughtUp;
                    try {
                        long t0 = System.nanoTime();
                        try {
                            n = from.read(piece);
                        } catch (IOException e) {
                            throw new ReadFailed(e, total);
                        }
                        waited = System.nanoTime() - t0;
                        if (n < 0) {
                            return total;
                        }
                        piece.flip();
                        try {
                            direct.write(piece);
                            caughtUp = from.available() == 0;
                            if (caughtUp) {
                                to.flush(); // nothing is buffered after a direct write; kept for the contract
                            }
                        } catch (IOException e) {
                            throw new WriteFailed(e, total);
                        }
                    } finally {
                        directs.give(piece);
                    }
                    total += n;
                    if (waited > SLOW_READ_NANOS && caughtUp && n < piece.capacity()) {
                        // The sender slowed down: back to small heap buffers, its next byte awaited without one.
                        slow = true;
                        size = FIRST_BUFFER;
                        buffer = null;
                    }
                    continue;
                }
            }
            int n;
            boolean awaited = false;
            long waited;
            try {
                if (buffer == null) {
                    if (slow) {
                        if (!from.awaitData()) {
                            return total;
                        }
                        awaited = true;
                    }
                    buffer = new byte[size];
                }
                long t0 = System.nanoTime();
                n = from.read(buffer, 0, buffer.length);
                waited = System.nanoTime() - t0;
            } catch (IOException e) {
                throw new ReadFailed(e, total);
            }
            if (n < 0) {
                return total;
            }
            boolean caughtUp;
            try {
                to.write(buffer, 0, n);
                // Nothing more is waiting: hand what we have to the receiver now rather than wait to fill a buffer.
                caughtUp = from.available() == 0;
                if (caughtUp) {
                    to.flush();
                }
            } catch (IOException e) {
                throw new WriteFailed(e, total);
            }
            total += n;
            if (!awaited) { // a read just after awaitData finds its data waiting: it says nothing about speed
                slow = waited > SLOW_READ_NANOS;
            }
            if (n == buffer.length) { // the sender fills buffers: a larger one, up to what is left of the body
                slow = false;
                if (size < MAX_BUFFER && (length < 0 || length - total > size)) {
                    size = Math.min(MAX_BUFFER, size * 2);
                    buffer = null;
                }
            } else if (slow && caughtUp) { // the sender is slow and silent now: wait for it holding no buffer
                size = Math.min(size, FIRST_BUFFER);
                buffer = null;
            }
        }
    }
}
