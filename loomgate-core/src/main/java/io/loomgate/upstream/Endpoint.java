package io.loomgate.upstream;

import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * One origin instance, the key of a connection pool: a plain and a TLS connection to the same host and port are
 * different endpoints with different pools, and so are two addresses of one host name.
 *
 * @param host    name or literal address, as configured: what Host and TLS (SNI, certificate check) name
 * @param port    TCP port
 * @param tls     whether connections speak TLS ({@code https://})
 * @param address where connections go: one of the addresses {@code host} resolved to ({@link DnsRefresh}); null
 *                when the host is resolved on each dial instead (a literal, or a name with DNS refresh off)
 */
public record Endpoint(String host, int port, boolean tls, InetAddress address) {
    /** An endpoint resolved on each dial. */
    public Endpoint(String host, int port, boolean tls) {
        this(host, port, tls, null);
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
        return new Endpoint(host, port, tls, resolved);
    }

    /** The endpoint as configured, without a resolved address. */
    public Endpoint configured() {
        return address == null ? this : new Endpoint(host, port, tls, null);
    }

    /** Whether the host is a DNS name (what {@link DnsRefresh} re-resolves), not a literal IPv4 or IPv6 address. */
    public boolean hasHostName() {
        return host.indexOf(':') < 0 && !host.matches("\\d{1,3}(\\.\\d{1,3}){3}");
    }

    @Override
    public String toString() {
        return tls ? "https://" + label() : label();
    }
}
