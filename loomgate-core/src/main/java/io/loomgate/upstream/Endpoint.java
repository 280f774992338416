package io.loomgate.upstream;

/**
 * One origin instance, the key of a connection pool. Only {@code http} is supported.
 *
 * @param host name or literal address
 * @param port TCP port
 */
public record Endpoint(String host, int port) {
    /** {@code host:port}, as sent in Host when the route does not preserve the client's. */
    public String authority() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    @Override
    public String toString() {
        return authority();
    }
}
