package io.loomgate.http1;

import io.loomgate.http.HttpLimits;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;

/**
 * How a message body is delimited (RFC 9112 §6.3), decided once from the head, shared by server and client side.
 */
public sealed interface BodyFraming {

    /** No body at all. */
    record None() implements BodyFraming {
    }

    /** Exactly {@code length} bytes (Content-Length). */
    record Fixed(long length) implements BodyFraming {
    }

    /** Transfer-Encoding: chunked, possibly with trailers. */
    record Chunked() implements BodyFraming {
    }

    /** A response body that ends when the origin closes the connection (no length, not chunked). */
    record UntilClose() implements BodyFraming {
    }

    BodyFraming NONE = new None();
    BodyFraming CHUNKED = new Chunked();
    BodyFraming UNTIL_CLOSE = new UntilClose();

    /**
     * The framing of a request body. Refuses (400) Content-Length together with Transfer-Encoding, differing or
     * malformed Content-Length values, and any Transfer-Encoding whose final coding is not chunked; 501 for a
     * transfer coding other than chunked.
     */
    static BodyFraming ofRequest(RequestHead head) throws HttpParseException {
        throw new UnsupportedOperationException("stub");
    }

    /**
     * The framing of a response body to a request with this method: none for HEAD, for 1xx/204/304 and for a 2xx to
     * CONNECT; otherwise chunked, Content-Length, or until close.
     */
    static BodyFraming ofResponse(String requestMethod, ResponseHead head) throws HttpParseException {
        throw new UnsupportedOperationException("stub");
    }

    /** A stream of exactly this body, reading from the connection's input. */
    default BodyInputStream open(HttpInput in, HttpLimits limits) {
        throw new UnsupportedOperationException("stub");
    }
}
