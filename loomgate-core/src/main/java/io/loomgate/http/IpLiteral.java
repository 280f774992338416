package io.loomgate.http;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Parses an IP address written in a request (an X-Forwarded-For hop) without ever resolving a name: dotted-quad IPv4
 * (optionally with {@code :port}) and IPv6 (optionally bracketed, with {@code :port} after the bracket). A hostile
 * header must not make the gateway do a DNS lookup, which {@code InetAddress.getByName} would do for anything it
 * does not take for a literal.
 */
public final class IpLiteral {
    private IpLiteral() {
    }

    /** The address, or null when the text is not an IP literal. */
    public static InetAddress parse(String text) {
        String t = text.trim();
        if (t.startsWith("[")) {
            int close = t.indexOf(']');
            if (close < 0 || (close + 1 < t.length() && t.charAt(close + 1) != ':')) {
                return null;
            }
            return ipv6(t.substring(1, close));
        }
        int colon = t.indexOf(':');
        if (colon >= 0 && t.indexOf(':', colon + 1) >= 0) {
            return ipv6(t);
        }
        return ipv4(colon < 0 ? t : t.substring(0, colon));
    }

    private static InetAddress ipv4(String t) {
        byte[] b = new byte[4];
        int part = 0;
        int value = -1;
        for (int i = 0; i <= t.length(); i++) {
            char c = i < t.length() ? t.charAt(i) : '.';
            if (c == '.') {
                if (value < 0 || part == 4) {
                    return null;
                }
                b[part++] = (byte) value;
                value = -1;
            } else if (c >= '0' && c <= '9') {
                value = value < 0 ? c - '0' : value * 10 + (c - '0');
                if (value > 255) {
                    return null;
                }
            } else {
                return null;
            }
        }
        return part == 4 ? byAddress(b) : null;
    }

    private static InetAddress ipv6(String t) {
        if (t.isEmpty() || !t.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == ':' || c == '.')) {
            return null;
        }
        try {
            // Bracketed, getByName only ever parses an IPv6 literal (and throws for anything else): no lookup.
            return InetAddress.getByName("[" + t + "]");
        } catch (UnknownHostException e) {
            return null;
        }
    }

    private static InetAddress byAddress(byte[] b) {
        try {
            return InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
            return null; // only for a wrong length, which cannot happen here
        }
    }
}
