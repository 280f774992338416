package io.loomgate.upstream;

import java.io.IOException;

/**
 * The TLS handshake with an origin failed: its certificate expired, its CA is unknown, its host name does not
 * match, or the origin refused us. The message says which, naming the endpoint.
 */
public final class UpstreamTlsException extends IOException {
    public UpstreamTlsException(String message, Throwable cause) {
        super(message, cause);
    }
}
