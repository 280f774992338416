package io.loomgate.config;

import java.net.URI;
import java.util.Locale;

/**
 * An upstream address as configuration writes it: {@code http://host[:port]}, {@code https://host[:port]} or
 * {@code h2c://host[:port]} (HTTP/2 with prior knowledge) with an optional trailing '/', the port defaulting to 80
 * or 443. Parsed by hand because {@link URI#getHost()} gives null for names with '_' (common for
 * container hostnames). Hosts may be names, IPv4 literals or bracketed IPv6 literals.
 *
 * @param host the host as written, without brackets
 * @param port 1..65535
 * @param tls  https
 * @param h2c  h2c: HTTP/2 with prior knowledge on a plain connection
 */
record UpstreamUri(String host, int port, boolean tls, boolean h2c) {

    /**
     * @throws IllegalArgumentException saying what was expected
     */
    static UpstreamUri parse(String text) {
        String t = text.trim();
        String lower = t.toLowerCase(Locale.ROOT);
        if (lower.startsWith("lb://")) {
            throw new IllegalArgumentException("lb://NAME names a service of the upstreams: section and stands alone "
                    + "as a route's uri; here an origin is expected (http://host:port), got '" + text + "'");
        }
        boolean tls = lower.startsWith("https://");
        boolean h2c = lower.startsWith("h2c://");
        if (!tls && !h2c && !lower.startsWith("http://")) {
            throw new IllegalArgumentException("expected http://host:port, https://host:port or h2c://host:port, got '"
                    + text + "'");
        }
        String authority = t.substring(t.indexOf("://") + 3);
        if (authority.endsWith("/")) {
            authority = authority.substring(0, authority.length() - 1);
        }
        if (authority.isEmpty() || authority.indexOf('/') >= 0 || authority.indexOf('?') >= 0
                || authority.indexOf('#') >= 0 || authority.indexOf('@') >= 0) {
            throw new IllegalArgumentException("expected http://host:port without a path, query or user info, got '"
                    + text + "'");
        }
        String host;
        String port = null;
        if (authority.startsWith("[")) {
            int close = authority.indexOf(']');
            if (close < 0 || (close + 1 < authority.length() && authority.charAt(close + 1) != ':')) {
                throw new IllegalArgumentException("malformed IPv6 host in '" + text + "'");
            }
            host = authority.substring(1, close);
            port = close + 1 < authority.length() ? authority.substring(close + 2) : null;
        } else {
            int colon = authority.lastIndexOf(':');
            host = colon < 0 ? authority : authority.substring(0, colon);
            port = colon < 0 ? null : authority.substring(colon + 1);
        }
        if (host.isEmpty() || !host.matches("[A-Za-z0-9._:%-]+")) {
            throw new IllegalArgumentException("invalid host '" + host + "' in '" + text + "'");
        }
        return new UpstreamUri(host, port == null ? (tls ? 443 : 80) : port(port, text), tls, h2c);
    }

    private static int port(String port, String text) {
        try {
            int p = Integer.parseInt(port);
            if (p >= 1 && p <= 65535) {
                return p;
            }
        } catch (NumberFormatException e) {
            // the message below says what was expected
        }
        throw new IllegalArgumentException("port must be 1..65535 in '" + text + "'");
    }

    /** {@code http://host:port} (or https, h2c), brackets around an IPv6 literal. */
    URI toUri() {
        return URI.create((tls ? "https://" : h2c ? "h2c://" : "http://") + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port);
    }

    /** Reads back what {@link #toUri()} made (its authority may be registry-based when the host has '_'). */
    static UpstreamUri of(URI uri) {
        return parse(uri.toString());
    }
}
