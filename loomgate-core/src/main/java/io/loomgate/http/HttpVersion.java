package io.loomgate.http;

/** The protocol versions HTTP/1.x heads carry, written once: the parsers return these very strings. */
public final class HttpVersion {
    public static final String HTTP_1_0 = "HTTP/1.0";
    public static final String HTTP_1_1 = "HTTP/1.1";

    private HttpVersion() {
    }
}
