package io.loomgate.http;

/**
 * A request field the gateway writes into an outgoing head (HTTP/1.1 text, HTTP/2 HPACK) straight from its own
 * state, after the request's fields, where a {@link Headers} value would be a String made per request only to be
 * copied into the head (the proxy's {@code traceparent}: 170 B of every request's allocation as a String). Its value
 * is visible US-ASCII (no SP, CR, LF or NUL): the writers copy it unchecked. Read on the thread that writes the head.
 */
public interface GeneratedField {
    /** The field's name, lower case. */
    String name();

    /** The value's length in characters. */
    int valueLength();

    /** The value's character at {@code i}, {@code 0 <= i < valueLength()}. */
    char valueAt(int i);
}
