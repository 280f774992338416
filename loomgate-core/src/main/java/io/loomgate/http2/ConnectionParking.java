package io.loomgate.http2;

import java.io.IOException;

/**
 * How an idle server {@link Http2Connection} gives up its reader thread: the listener's idle poller (IdleConnections,
 * in the server package), through the connection's park state, the one HTTP/1.1's loop uses too (ParkState: it also
 * keeps what the waits learn). Called on the reader thread only.
 */
public interface ConnectionParking {
    /** Bounds the socket's next reads (SO_TIMEOUT) to this many milliseconds, for the hand-off; 0 unbounds them. */
    void boundReads(int millis) throws IOException;

    /** How long the reader waits on its thread for the next frame before it looks whether it may park. */
    long handOffNanos();

    /** Whether the next wait is untimed: the previous one ended within the hand-off delay (busy). */
    boolean waitsUntimed();

    /** An untimed wait took this long. */
    void waitedUntimed(long nanos);

    /**
     * A timed wait ended with a frame after this long; {@code telling}: whether it says anything about how the
     * connection is used (not the waits of its first stream: a client's SETTINGS ACK comes right after its first
     * request).
     */
    void waitedTimed(boolean telling, long nanos);

    /**
     * How much of the idle timeout ({@code idleTimeoutNanos}) a timed wait that begins now has left: all of it, unless
     * the connection was resumed after a park and no frame has come since, when the parked wait goes on (see the
     * server's ParkState).
     */
    long idleLeftNanos(long idleTimeoutNanos);

    /**
     * Hands the idle connection to the poller, with this much of its idle timeout left: true when the reader's thread
     * is done (parked, or ended by the poller), false when nothing changed (drain began: the reader goes on, under
     * GOAWAY).
     */
    boolean park(long idleLeftNanos) throws IOException;
}
