package io.loomgate.http2;

import java.io.IOException;

/**
 * An upstream HTTP/2 stream that ended abnormally: the origin reset it, refused it, sent a malformed response on it,
 * or its connection went away. {@link #refused()} says the origin never processed the request (RST_STREAM
 * REFUSED_STREAM, or a GOAWAY whose last stream id is below this stream's: RFC 9113 §8.7), so sending it again,
 * whatever its method, is safe. {@link #malformed()} says the origin broke the protocol (a malformed response on this
 * stream, or frames that were a connection error): never retried, answered and counted as an invalid response.
 */
public final class Http2StreamException extends IOException {
    private final int code;
    private final boolean refused;
    private final boolean malformed;

    Http2StreamException(String message, int code, boolean refused) {
        this(message, code, refused, false);
    }

    Http2StreamException(String message, int code, boolean refused, boolean malformed) {
        super(message);
        this.code = code;
        this.refused = refused;
        this.malformed = malformed;
    }

    /** Whether the origin broke the protocol: a malformed response (RFC 9113 §8.1.1) or a connection error. */
    public boolean malformed() {
        return malformed;
    }

    /** The HTTP/2 error code (RFC 9113 §7). */
    public int code() {
        return code;
    }

    /** Whether the origin is known not to have processed the request. */
    public boolean refused() {
        return refused;
    }

    /** A fresh exception with the same facts, so each thread that meets the failure gets its own stack trace. */
    Http2StreamException copy() {
        return new Http2StreamException(getMessage(), code, refused, malformed);
    }
}
