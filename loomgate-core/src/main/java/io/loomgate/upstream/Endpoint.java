package io.loomgate.upstream;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * One origin instance, the key of a connection pool: a plain and a TLS connection to the same host and port are
 * different endpoints with different pools, and so are two addresses of one host name, and an HTTP/1.1 and an HTTP/2
 * endpoint.
 *
 * @param host    name or literal address, as configured: what Host and TLS (SNI, certificate check) name
 * @param port    TCP port
 * @param tls     whether connections speak TLS ({@code https://})
 * @param address where connections go: one of the addresses {@code host} resolved to ({@link DnsRefresh}); null
 *                when the host is resolved on each dial instead (a literal, or a name with DNS refresh off)
 * @param http2   whether requests go over multiplexed HTTP/2 connections: with prior knowledge on a plain endpoint
 *                ({@code h2c://}), negotiated by ALPN on a TLS one ({@code https://} with {@code upstream.http2}),
 *                falling back to HTTP/1.1 when the origin picks it
 */
public record Endpoint(String host, int port, boolean tls, InetAddress address, boolean http2) {
    /** An HTTP/1.1 endpoint at a resolved address (null: resolved on each dial). */
    public Endpoint(String host, int port, boolean tls, InetAddress address) {
        this(host, port, tls, address, false);
    }

    /** An endpoint resolved on each dial. */
    public Endpoint(String host, int port, boolean tls, boolean http2) {
        this(host, port, tls, null, http2);
    }

    /** An HTTP/1.1 endpoint resolved on each dial. */
    public Endpoint(String host, int port, boolean tls) {
        this(host, port, tls, null, false);
    }

    /** A plain {@code http://} endpoint. */
    public Endpoint(String host, int port) {
        this(host, port, false);
    }

    /** {@code host:port}, as sent in Host when the route does not preserve the client's. */
    public String authority() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    /**
     * The endpoint as metrics, {@code /routes} and logs name it: {@link #authority()}, followed by
     * {@code @address} when it is one address of a name ({@code api.internal:8080@10.0.0.7}).
     */
    public String label() {
        return address == null ? authority() : authority() + "@" + address.getHostAddress();
    }

    /** The port the scheme implies, which Host leaves out (RFC 9110 §7.2). */
    public int defaultPort() {
        return tls ? 443 : 80;
    }

    /** Where to connect: the resolved address, or the host, looked up now (the JDK's cache applies). */
    public InetSocketAddress socketAddress() {
        return address != null ? new InetSocketAddress(address, port) : new InetSocketAddress(host, port);
    }

    /** This endpoint at one of its host's addresses. */
    public Endpoint at(InetAddress resolved) {
        return new Endpoint(host, port, tls, resolved, http2);
    }

    /** The endpoint as configured, without a resolved address. */
    public Endpoint configured() {
        return address == null ? this : new Endpoint(host, port, tls, null, http2);
    }

    /** Whether the host is a DNS name (what {@link DnsRefresh} re-resolves), not a literal IPv4 or IPv6 address. */
    public boolean hasHostName() {
        return host.indexOf(':') < 0 && !host.matches("\\d{1,3}(\\.\\d{1,3}){3}");
    }

    /*
     * equals and hashCode as the record's own (every component), written out: a record's are bootstrapped by
     * invokedynamic (java.lang.runtime.ObjectMethods) at their first call, which JDK 25's AOT cache does not hold, so
     * the first comparison of endpoints at start spun method-handle classes at run time (about 5 ms of the main
     * thread before the first answer). A component added to the record must be added to both.
     */
    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof Endpoint e && port == e.port && tls == e.tls && http2 == e.http2
                && Objects.equals(host, e.host) && Objects.equals(address, e.address);
    }

    @Override
    public int hashCode() {
        return Objects.hash(host, port, tls, address, http2);
    }

    @Override
    public String toString() {
        return tls ? "https://" + label() + (http2 ? " (h2)" : "") : http2 ? "h2c://" + label() : label();
    }
}
