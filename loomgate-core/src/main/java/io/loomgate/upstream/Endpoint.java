package io.loomgate.upstream;

/**
 * One origin instance, the key of a connection pool: a plain and a TLS connection to the same host and port are
 * different endpoints with different pools.
 *
 * @param host name or literal address
 * @param port TCP port
 * @param tls  whether connections speak TLS ({@code https://})
 */
public record Endpoint(String host, int port, boolean tls) {
    /** A plain {@code http://} endpoint. */
    public Endpoint(String host, int port) {
        this(host, port, false);
    }

    /** {@code host:port}, as sent in Host when the route does not preserve the client's. */
    public String authority() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    /** The port the scheme implies, which Host leaves out (RFC 9110 §7.2). */
    public int defaultPort() {
        return tls ? 443 : 80;
    }

    @Override
    public String toString() {
        return tls ? "https://" + authority() : authority();
    }
}
