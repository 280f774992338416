package io.loomgate.http;

/** Method names and what RFC 9110 §9.2 says of them. Methods stay strings: extension methods are legal. */
public final class Method {
    public static final String GET = "GET";
    public static final String HEAD = "HEAD";
    public static final String POST = "POST";
    public static final String PUT = "PUT";
    public static final String DELETE = "DELETE";
    public static final String CONNECT = "CONNECT";
    public static final String OPTIONS = "OPTIONS";
    public static final String TRACE = "TRACE";
    public static final String PATCH = "PATCH";

    private Method() {
    }

    /** Idempotent methods (RFC 9110 §9.2.2) may be retried after a failure on a reused connection. */
    public static boolean isIdempotent(String method) {
        return switch (method) {
            case GET, HEAD, PUT, DELETE, OPTIONS, TRACE -> true;
            default -> false;
        };
    }
}
