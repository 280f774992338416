package io.loomgate.http2;

import io.loomgate.http.ClientCancel;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a server connection's streams end early: this side resets one (its handler failed or returned unfinished, its
 * send window stayed shut, the reader found a stream error), the client resets one, or a stream whose response is
 * complete is told to stop sending (RST_STREAM NO_ERROR, RFC 9113 §8.1), at once or after its early answer's
 * discard ({@link EarlyAnswerDiscards}). Each leaves the connection's stream table, wakes whoever waits on it, and
 * has its handler's work upstream cancelled; the streams this side reset lately are remembered ({@link ResetStreams})
 * so that their DATA still in flight is ignored.
 *
 * <p>Guarding: the ring and every stream's state are guarded by the connection's lock, taken here and released before
 * RST_STREAM is written, a handler's work cancelled or its thread interrupted; never held across I/O.
 */
final class StreamResets {
    private static final Logger log = LoggerFactory.getLogger(StreamResets.class);

    private final Http2Connection conn;
    private final long id;
    /** The connection's open streams (read under its lock). */
    private final StreamTable<Http2Stream> streams;
    private final Http2Settings settings;
    /** The streams this side reset lately: their DATA in flight is ignored (RFC 9113 §5.1); guarded by the lock. */
    private final ResetStreams resetStreams;

    StreamResets(Http2Connection conn, long id, StreamTable<Http2Stream> streams, Http2Settings settings) {
        this.conn = conn;
        this.id = id;
        this.streams = streams;
        this.settings = settings;
        this.resetStreams = new ResetStreams(Math.clamp(2L * settings.maxConcurrentStreams(), 16, 256));
    }

    /** A client reset a stream: it ends, and its handler's work upstream is cancelled. Whether one was open. */
    boolean resetByClient(int stream) {
        Http2Stream s;
        Thread handler = null;
        ClientCancel cancel = null;
        conn.lock.lock();
        try {
            s = conn.removeStream(stream);
            if (s != null) {
                s.markReset("reset by the client");
                if (!s.localClosed) { // a response gone whole to the writer has no work left to cancel (endAll)
                    cancel = s.onCancel;
                    handler = cancel == null ? s.thread : null;
                }
                conn.sendWindow.wake();
            }
        } finally {
            conn.lock.unlock();
        }
        cancelHandler(cancel, handler);
        return s != null;
    }

    /**
     * Our side of the stream has ended. A client still sending a body it no longer needs to is told to stop
     * (RST_STREAM NO_ERROR, RFC 9113 §8.1), once the stream's thread has taken what it could of the rest
     * (Http2Stream.deferRest, ServerFrames.afterHandler).
     */
    void afterLocalEnd(Http2Stream s) {
        if (s.deferRest()) {
            return; // an early answer: the rest of the request is taken once the handler returned, then this again
        }
        stopClient(s, "response complete");
    }

    /**
     * A stream whose response is complete: if the client is still sending, RST_STREAM NO_ERROR tells it to stop (its
     * DATA in flight is then ignored); either way it leaves once both sides are done.
     */
    void stopClient(Http2Stream s, String why) {
        boolean stopClient;
        conn.lock.lock();
        try {
            stopClient = !s.remoteClosed() && !s.isReset() && streams.get(s.id()) == s;
            if (stopClient) {
                s.markReset(why);
                resetStreams.add(s.id(), s.body().recvWindowLocked());
            }
            if (stopClient || s.remoteClosed()) {
                conn.removeStream(s.id());
            }
        } finally {
            conn.lock.unlock();
        }
        if (stopClient) {
            try {
                conn.writer.rstStream(s.id(), Frames.NO_ERROR);
            } catch (IOException e) {
                log.debug("h2 connection {}: RST_STREAM failed: {}", id, e.toString());
            }
        }
        conn.endOutputIfDone();
    }

    /**
     * On the reader, for DATA of a stream whose rest is discarded: once a bound is passed, RST_STREAM NO_ERROR ends it.
     */
    void discardBoundPassed(Http2Stream s) {
        stopClient(s, "rest of an early-answered request over its bound");
    }

    /**
     * Under the lock, on the reader: DATA of {@code length} (its window share) on stream {@code id}, which is not open,
     * still in flight from before this side reset it: to be ignored (see {@link ResetStreams}).
     */
    boolean absorbsDataLocked(int stream, int length, boolean endStream) {
        return resetStreams.absorbsData(stream, length, endStream);
    }

    /** Under the lock, on the reader: trailers on stream {@code id}, not open, sent before this side reset it. */
    boolean absorbsTrailersLocked(int stream) {
        return resetStreams.absorbsTrailers(stream);
    }

    /** Resets a stream from its own thread (or the reader): RST_STREAM, unless it already ended. */
    void resetLocally(Http2Stream s, int code, String why) {
        resetLocally(s, code, why, false);
    }

    /** With {@code always}, RST_STREAM goes out even if our side had ended: the reader found a stream error. */
    private void resetLocally(Http2Stream s, int code, String why, boolean always) {
        boolean send;
        conn.lock.lock();
        try {
            send = (always || !s.localClosed && !s.isReset()) && !conn.endedLocked();
            if (send) {
                resetStreams.add(s.id(), s.body().recvWindowLocked());
            }
            s.localClosed = true;
            s.markReset(why);
            conn.removeStream(s.id());
            conn.sendWindow.wake();
        } finally {
            conn.lock.unlock();
        }
        if (send) {
            try {
                conn.writer.rstStream(s.id(), code);
            } catch (IOException e) {
                log.debug("h2 connection {}: RST_STREAM failed: {}", id, e.toString());
            }
        }
        conn.endOutputIfDone();
    }

    /**
     * Ends what a reset stream's handler is doing upstream. The handler's own cancel (its upstream attempt's abort:
     * RST_STREAM to an HTTP/2 origin, the socket of an HTTP/1.1 one closed) when it registered one; else its thread
     * is interrupted (a virtual thread interrupted in a socket read closes that socket), under the writer's lock so
     * that it never lands in a write to the client. The interrupt cannot tell a socket the thread owns from one that
     * other streams share (a multiplexed upstream connection), which is why the proxy registers a cancel.
     */
    void cancelHandler(ClientCancel cancel, Thread handler) {
        if (cancel != null) {
            try {
                cancel.clientCancelled();
            } catch (RuntimeException e) {
                log.warn("h2 connection {}: cancelling a reset stream's work failed", id, e);
            }
        } else if (handler != null) {
            conn.writer.interruptBetweenWrites(handler);
        }
    }

    /**
     * A stream error found by the reader; whether it reset a stream that was open (its handler's work cancelled).
     * {@code opening}: the error refused the stream its frame was opening (REFUSED_STREAM, a malformed request), whose
     * DATA may be in flight already.
     */
    boolean resetFromReader(int stream, int code, String why, boolean opening) throws IOException {
        Http2Stream s;
        conn.lock.lock();
        try {
            s = streams.get(stream);
        } finally {
            conn.lock.unlock();
        }
        if (s != null) {
            ClientCancel cancel;
            Thread handler;
            conn.lock.lock();
            try {
                cancel = s.onCancel;
                handler = cancel == null ? s.thread : null;
            } finally {
                conn.lock.unlock();
            }
            // Reset (and marked reset) before the handler's work is cancelled, as a client's reset is: a cancelled
            // handler that reset the stream itself first would send its own code ahead of this error's (h2spec
            // 6.9.1/3 once read another code where FLOW_CONTROL_ERROR was due, at load 9).
            resetLocally(s, code, why, true);
            cancelHandler(cancel, handler);
            return true;
        }
        if (opening) {
            conn.lock.lock();
            try {
                // The client may send its request body on the stream before it reads the reset: the window it had.
                resetStreams.add(stream, Math.max(Frames.DEFAULT_WINDOW, settings.initialWindowSize()));
            } finally {
                conn.lock.unlock();
            }
        }
        conn.writer.rstStream(stream, code);
        return false;
    }
}
