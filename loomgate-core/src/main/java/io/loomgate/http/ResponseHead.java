package io.loomgate.http;

/**
 * A status line and its header fields. The headers object is mutable and owned by one exchange.
 *
 * @param version {@code HTTP/1.1} or {@code HTTP/1.0}
 * @param status  the three-digit status code
 * @param reason  the reason phrase as received (may be empty); ignored by HTTP/1.1 clients (RFC 9112 §4)
 * @param headers the fields, in order
 */
public record ResponseHead(String version, int status, String reason, Headers headers) {

    public static ResponseHead of(int status) {
        return new ResponseHead(HttpVersion.HTTP_1_1, status, Status.reason(status), new Headers());
    }

    public ResponseHead withStatus(int newStatus) {
        return new ResponseHead(version, newStatus, Status.reason(newStatus), headers);
    }

    /** 1xx: informational, more heads follow (except 101, which switches protocols). */
    public boolean isInformational() {
        return status >= 100 && status < 200;
    }
}
