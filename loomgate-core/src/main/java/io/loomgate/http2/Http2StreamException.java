package io.loomgate.http2;

import java.io.IOException;

/**
 * An upstream HTTP/2 stream that ended abnormally: the origin reset it, refused it, sent a malformed response on it,
 * or its connection went away. {@link #refused()} says the origin never processed the request (RST_STREAM
 * REFUSED_STREAM, or a GOAWAY whose last stream id is below this stream's: RFC 9113 §8.7), so sending it again,
 * whatever its method, is safe.
 */
public final class Http2StreamException extends IOException {
    private final int code;
    private final boolean refused;

    Http2StreamException(String message, int code, boolean refused) {
        super(message);
        this.code = code;
        this.refused = refused;
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
        return new Http2StreamException(getMessage(), code, refused);
    }
}
