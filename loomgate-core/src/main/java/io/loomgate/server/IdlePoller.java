package io.loomgate.server;

import java.io.IOException;
import java.net.Socket;

/**
 * Where a listener's idle keep-alive connections wait without a thread, each through its {@link ParkState} (the one
 * contract: whoever moves it out of PARKED owns it). One per listener, of the listener's transport:
 * {@link IdleConnections} (a selector over the JDK's channels) or {@link EpollIdleConnections} (a readiness callback
 * on the epoll poller, which already watches every socket). While a connection is parked, its poller owns its idle
 * deadline, drain's eviction and the listener's end, and resumes it on a new thread from the listener's executor
 * when bytes or the client's FIN arrive. On a fixed pool of platform threads it also holds each new connection until
 * its client's first bytes ({@link ParkState#parkBeforeFirstBytes}), so a silent client holds none of the pool.
 */
interface IdlePoller extends AutoCloseable {
    /** Whether a connection over this accepted socket can park here (the JDK's selector needs a channel). */
    boolean canPark(Socket raw);

    /**
     * Takes an idle connection (its state already PARKED; the caller's thread is done with it once this returns
     * true); false when the poller is closed (the caller then ends the connection itself).
     */
    boolean park(ParkState c) throws IOException;

    /**
     * Drain: ends this connection if it is parked (or about to be). A connection resumed meanwhile is left to finish
     * its request, unless {@code hard} (drain's timeout, an abort): then its socket is closed as abort would have.
     */
    void evict(ParkState c, boolean hard);

    /**
     * Writes a few bytes (HTTP/2's GOAWAY) to a parked connection's socket without ever blocking: what does not fit
     * in the send buffer is dropped (the close that follows says it).
     */
    void sendWhileParked(Socket raw, byte[] bytes) throws IOException;

    /**
     * A new connection asks to wait for the hand-off delay on its own thread after its first request; false: it parks
     * at once. A true answer is followed by one {@link #endHandoff()}. Both pollers grant a few at once
     * ({@link IdleConnections#startHandoff}, which says why; {@link EpollIdleConnections} since session 49); a poller
     * that does not bound them grants every one.
     */
    default boolean startHandoff() {
        return true;
    }

    /** A new connection's hand-off wait that {@link #startHandoff()} granted ended. */
    default void endHandoff() {
    }

    /** Connections parked now. */
    int parked();

    /** How many times a connection was parked here, in all. */
    long parks();

    /** Ends every parked connection and stops; connections parking later are refused. */
    @Override
    void close();
}
