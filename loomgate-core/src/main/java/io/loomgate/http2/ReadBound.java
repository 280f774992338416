package io.loomgate.http2;

import java.io.IOException;

/**
 * The socket's own read timeout (SO_TIMEOUT), which ends a wait softly: the connection reads on after it, where the
 * read watchdog's expiry cuts the input for good. What an {@link Http2Connection}'s waits use while a stream is
 * answered (the connection is not idle then: see its {@code awaitFrame}). Called on the reader thread only.
 */
public interface ReadBound {
    /** Bounds the socket's next reads (SO_TIMEOUT) to this many milliseconds; 0 unbounds them. */
    void boundReads(int millis) throws IOException;
}
