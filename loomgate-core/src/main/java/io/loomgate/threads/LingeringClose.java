package io.loomgate.threads;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import javax.net.ssl.SSLSocket;

/**
 * The end of a connection whose peer may still be sending: on the server side an early answer (a 413, 401, 429, 404
 * before the request body was read), a protocol error's answer, an HTTP/2 GOAWAY for an error; on the client side an
 * HTTP/2 GOAWAY for an error to an origin (a flood, a connection error in its frames), which it may still be flooding
 * (the upstream package's {@code Http2Pool} lingers so). What is said below of "the client" holds for such an origin.
 * Closing a socket with unread input makes the kernel answer with a RST, and a RST can make the client's kernel drop
 * the answer it had not read yet; the client then sees "connection reset" instead of the 413. So, as nginx's
 * {@code lingering_close} and Apache's do: half-close our side (TLS: close_notify, then FIN), then read and throw away
 * what still comes until the client closes, within bounds, and only then close.
 *
 * <p>The bounds: {@link #PER_READ} per read, a total ({@link #TOTAL} unless the caller gives its own) and
 * {@link #BUDGET} bytes. They only decide how long a connection that is over anyway keeps its socket and thread, and
 * no client needs more of them, which is why they were all constants until session 57. The total became the
 * listener's {@code server.linger-timeout} (default {@link #TOTAL}) for a plainer reason: the tests of this bound
 * waited it out, 10 s of the suite's budget each, and a test cannot shorten a constant; an operator may also want a
 * hostile trickler's thread back sooner. The per-read bound and the budget stay constants (the per-read one never
 * outlasts the total); the origin side (an {@code Http2Pool} connection, a health check) keeps {@link #TOTAL}.
 * nginx's defaults are 5 s per read and 30 s in all; ours are 5 s and 10 s: a client that wants its answer is
 * uploading at full speed (its bytes keep coming) or has stopped (an {@code Expect: 100-continue} client, which
 * closes once it read the answer), and a hostile one that trickles a byte now and then must not hold a thread long.
 * Not shorter by default: with 2 s per read and 5 s in all, an 8 MiB upload written whole before its client read the
 * answer was cut (and its answer at risk again) on this project's 2-core machine at a load average of 53, where a
 * client's writes stalled for over 2 s (the traffic matrix's early-answer cells, stop 42); a shorter
 * {@code linger-timeout} takes that risk knowingly.
 * The byte budget bounds what a fast client makes us read (a 16 MiB upload over loopback takes tens of milliseconds).
 *
 * <p>It reads the plain socket, never the TLS layer: what still comes is thrown away, so it need not be decrypted.
 * Runs on the connection's own thread (an origin connection's: its reader's); the connection's close from another
 * thread (drain, abort, a pool's shut-down) ends it at once.
 */
public final class LingeringClose {
    /** Each read must bring something within this. */
    public static final Duration PER_READ = Duration.ofSeconds(5);
    /** The whole linger, from the half-close, by default (the listener's {@code server.linger-timeout}). */
    public static final Duration TOTAL = Duration.ofSeconds(10);
    /** Bytes thrown away at most. */
    public static final long BUDGET = 16L << 20;

    /** How a linger ended (for the debug log and the tests). */
    public enum End {
        /** The client closed (FIN): every byte it sent was read, the close sends no RST. */
        CLIENT_CLOSED,
        /** No byte within a read's timeout, or the total deadline passed. */
        TIMED_OUT,
        /** The byte budget was spent. */
        BUDGET_SPENT,
        /** The socket failed (reset by the client, or closed by drain or the listener meanwhile). */
        FAILED
    }

    private LingeringClose() {
    }

    /**
     * Reads {@code raw} and throws the bytes away until the client closes or a bound is reached (after
     * {@link #halfClose}), {@link #TOTAL} in all. The caller closes the socket afterwards.
     */
    public static End discard(Socket raw, Watchdog reads) {
        return discard(raw, reads, TOTAL);
    }

    /** As {@link #discard(Socket, Watchdog)}, for at most {@code total} in all (each read within {@link #PER_READ}). */
    public static End discard(Socket raw, Watchdog reads, Duration total) {
        WatchedInputStream in;
        try {
            in = new WatchedInputStream(raw.getInputStream(), raw::shutdownInput, reads);
        } catch (IOException e) {
            return End.FAILED; // closed meanwhile (drain)
        }
        try {
            return discard(in, reads.clock(), total.toNanos(), PER_READ.toNanos(), BUDGET);
        } finally {
            in.close();
        }
    }

    /**
     * TLS's half-close where the socket does it (close_notify, then FIN: JSSE's socket and the gateway's engine
     * socket); a socket that cannot (Conscrypt's layered socket sends no close_notify without closing) gets the FIN
     * alone: the answer was framed (a length), which is all a client needs to read it whole.
     */
    public static void halfClose(Socket raw, Socket socket) {
        try {
            socket.shutdownOutput();
            return;
        } catch (IOException | UnsupportedOperationException e) {
            // below: the plain socket's FIN
        }
        if (socket instanceof SSLSocket) {
            try {
                raw.shutdownOutput();
            } catch (IOException e) {
                // already closed: the reads below end at once
            }
        }
    }

    /**
     * {@link #halfClose} under the connection's own write deadline {@code d} (null: none), armed for
     * {@code writeNanos}: close_notify is a write, bounded as every write, so a client that reads nothing cannot hold
     * it (the deadline's expiry closes the connection as for any other write).
     */
    public static void halfClose(Socket raw, Socket socket, Deadline d, long writeNanos) {
        if (d != null) {
            d.armAfter(writeNanos);
        }
        try {
            halfClose(raw, socket);
        } finally {
            if (d != null) {
                d.disarm();
            }
        }
    }

    /**
     * {@link #halfClose} under a write deadline of {@code writeNanos} (close_notify is a write, and a peer that reads
     * nothing must not hold it: past the deadline {@code raw} is closed), then {@link #discard(Socket, Watchdog)}. For
     * a connection that has no write deadline of its own (an origin connection's reader). The caller closes the socket.
     */
    public static End halfCloseThenDiscard(Socket raw, Socket socket, Watchdog reads, long writeNanos) {
        try (Deadline d = reads.deadline(() -> closeQuietly(raw))) {
            d.armAfter(writeNanos);
            halfClose(raw, socket);
        }
        return discard(raw, reads);
    }

    private static void closeQuietly(Socket raw) {
        try {
            raw.close();
        } catch (IOException e) {
            // closed either way
        }
    }

    /** Reads and throws away until EOF, the deadlines or the budget. */
    static End discard(WatchedInputStream in, NanoClock clock, long totalNanos, long perReadNanos, long budget) {
        long end = clock.nanoTime() + totalNanos;
        byte[] sink = new byte[16 * 1024];
        long left = budget;
        try {
            while (true) {
                long now = clock.nanoTime();
                // One phase deadline per read: the per-read timeout, but never past the total.
                in.setPhaseDeadline(end - now < perReadNanos ? end : now + perReadNanos, "lingering close");
                int n = in.read(sink, 0, sink.length);
                if (n < 0) {
                    return End.CLIENT_CLOSED;
                }
                left -= n;
                if (left <= 0) {
                    return End.BUDGET_SPENT;
                }
            }
        } catch (SocketTimeoutException e) {
            return End.TIMED_OUT;
        } catch (IOException e) {
            return End.FAILED;
        }
    }
}
