package io.loomgate.http1;

import java.io.IOException;

/**
 * A message that breaks RFC 9112: refused, never repaired. Carries the status a server answers with (400, 414, 431,
 * 501, 505); on the client side any parse failure means 502 to the downstream client.
 */
public final class HttpParseException extends IOException {
    private final int status;

    public HttpParseException(int status, String message) {
        super(message);
        this.status = status;
    }

    /** The status a server sends for this failure. */
    public int status() {
        return status;
    }
}
