package io.loomgate.http1;

import io.loomgate.http.Headers;
import io.loomgate.http.HttpLimits;
import io.loomgate.http.HttpVersion;
import io.loomgate.http.Method;
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
        Headers headers = head.headers();
        int te = headers.indexOf(FramingFields.TRANSFER_ENCODING, 0);
        int cl = headers.indexOf(FramingFields.CONTENT_LENGTH, 0);
        if (te >= 0) {
            if (cl >= 0) {
                // RFC 9112 §6.1/§6.3 rule 3: both fields is a request smuggling attempt (CWE-444); refuse and close.
                throw new HttpParseException(400, "both Transfer-Encoding and Content-Length (RFC 9112 §6.1)");
            }
            if (!head.isHttp11()) {
                // RFC 9112 §6.1: Transfer-Encoding in an HTTP/1.0 message means faulty framing.
                throw new HttpParseException(400, "Transfer-Encoding in an HTTP/1.0 request (RFC 9112 §6.1)");
            }
            return switch (FramingFields.transferCodings(headers, te, 400)) {
                case CHUNKED -> CHUNKED;
                // RFC 9112 §6.3 rule 4: a request whose final coding is not chunked MUST get 400.
                case NOT_CHUNKED_FINAL -> throw new HttpParseException(400,
                        "Transfer-Encoding must end with chunked in a request (RFC 9112 §6.3)");
                // RFC 9112 §7: chunked MUST NOT be applied more than once.
                case CHUNKED_TWICE -> throw new HttpParseException(400,
                        "Transfer-Encoding applies chunked more than once (RFC 9112 §7)");
                // RFC 9112 §6.1: a server SHOULD answer 501 to a transfer coding it does not implement (gzip etc.
                // before chunked: we would have to decode it to know where the body ends for the origin).
                case CODED_THEN_CHUNKED -> throw new HttpParseException(501,
                        "transfer codings other than chunked are not implemented (RFC 9112 §6.1)");
            };
        }
        if (cl >= 0) {
            return new Fixed(FramingFields.contentLength(headers, cl, 400));
        }
        return NONE; // RFC 9112 §6.3 rule 6: a request with neither has no body
    }

    /**
     * The framing of a response body to a request with this method: none for HEAD, for 1xx/204/304 and for a 2xx to
     * CONNECT; otherwise chunked, Content-Length, or until close.
     */
    static BodyFraming ofResponse(String requestMethod, ResponseHead head) throws HttpParseException {
        int status = head.status();
        // RFC 9112 §6.3 rule 1: whatever the fields say, these responses end with their head.
        if (Method.HEAD.equals(requestMethod) || status < 200 || status == 204 || status == 304) {
            return NONE;
        }
        // RFC 9112 §6.3 rule 2: a 2xx to CONNECT switches to a tunnel.
        if (status < 300 && Method.CONNECT.equals(requestMethod)) {
            return NONE;
        }
        Headers headers = head.headers();
        int te = headers.indexOf(FramingFields.TRANSFER_ENCODING, 0);
        int cl = headers.indexOf(FramingFields.CONTENT_LENGTH, 0);
        if (te >= 0) {
            if (cl >= 0) {
                // RFC 9112 §6.3 rule 3: "ought to be handled as an error" (response splitting, CWE-444).
                throw new HttpParseException(502, "origin sent both Transfer-Encoding and Content-Length"
                        + " (RFC 9112 §6.3)");
            }
            if (!HttpVersion.HTTP_1_1.equals(head.version())) {
                throw new HttpParseException(502, "Transfer-Encoding in an HTTP/1.0 response (RFC 9112 §6.1)");
            }
            return switch (FramingFields.transferCodings(headers, te, 502)) {
                case CHUNKED -> CHUNKED;
                // RFC 9112 §6.3 rule 4 would read a body whose final coding is not chunked until close, but the
                // gateway decodes no other coding, never asked for one (TE is not forwarded), and re-framing would
                // drop the label and hand the client bytes it cannot decode: refused, as nginx does.
                case CODED_THEN_CHUNKED, NOT_CHUNKED_FINAL ->
                        throw new HttpParseException(502, "origin used the transfer coding '"
                                + String.join(", ", headers.all(FramingFields.TRANSFER_ENCODING))
                                + "'; only chunked is relayed (RFC 9112 §6.1)");
                case CHUNKED_TWICE -> throw new HttpParseException(502,
                        "origin applied chunked more than once (RFC 9112 §7)");
            };
        }
        if (cl >= 0) {
            return new Fixed(FramingFields.contentLength(headers, cl, 502));
        }
        return UNTIL_CLOSE; // RFC 9112 §6.3 rule 8
    }

    /** A stream of exactly this body, reading from the connection's input. */
    default BodyInputStream open(HttpInput in, HttpLimits limits) {
        // instanceof, not a pattern switch: JDK 25's AOT cache does not hold its bootstrap, which
        // spun a class before the first answer (docs/architecture.md, "Start-up")
        if (this instanceof Fixed fixed) {
            return fixed.length() == 0 ? EmptyBody.INSTANCE : new FixedLengthInputStream(in, fixed.length());
        }
        if (this instanceof Chunked) {
            return new ChunkedInputStream(in, limits);
        }
        if (this instanceof UntilClose) {
            return new UntilCloseInputStream(in);
        }
        return EmptyBody.INSTANCE; // None
    }
}
