package io.loomgate.http;

/**
 * The syntax of a Host field value and of an authority-form target: {@code uri-host [ ":" port ]} (RFC 9110 §7.2,
 * RFC 3986 §3.2.2). Checks syntax only; never resolves anything. One rule for both protocols: HTTP/1.1's Host field
 * and CONNECT target ({@code http1.RequestHeadParser}) and HTTP/2's {@code :authority} ({@code http2.RequestFields}).
 */
public final class HostSyntax {
    private HostSyntax() {
    }

    /**
     * Whether {@code s} is {@code host [":" port]}; with {@code portRequired} (CONNECT) the port must be present.
     * An empty Host is valid (RFC 9110 §7.2: a target URI without authority is sent with an empty Host).
     */
    public static boolean isValid(String s, boolean portRequired) {
        int n = s.length();
        if (n == 0) {
            return !portRequired;
        }
        int i;
        if (s.charAt(0) == '[') {
            // IP-literal: IPv6address or IPvFuture; we check the characters, the brackets and that it is not empty.
            int close = s.indexOf(']');
            if (close < 2) {
                return false;
            }
            for (int j = 1; j < close; j++) {
                char c = s.charAt(j);
                if (!(isUnreserved(c) || isSubDelim(c) || c == ':')) {
                    return false;
                }
            }
            i = close + 1;
        } else {
            i = 0;
            while (i < n) {
                char c = s.charAt(i);
                if (c == '%') {
                    if (i + 2 >= n || !isHex(s.charAt(i + 1)) || !isHex(s.charAt(i + 2))) {
                        return false;
                    }
                    i += 3;
                } else if (isUnreserved(c) || isSubDelim(c)) {
                    i++;
                } else {
                    break;
                }
            }
            if (i == 0) {
                return false; // ":80" has no host
            }
        }
        if (i == n) {
            return !portRequired;
        }
        if (s.charAt(i) != ':') {
            return false;
        }
        int portStart = ++i;
        int port = 0;
        while (i < n) {
            char c = s.charAt(i);
            if (c < '0' || c > '9' || i - portStart >= 5) {
                return false;
            }
            port = port * 10 + (c - '0');
            i++;
        }
        if (i == portStart) {
            return !portRequired; // "host:" has an empty port, which RFC 3986 allows
        }
        return port <= 65535;
    }

    private static boolean isUnreserved(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
                || c == '_' || c == '~';
    }

    private static boolean isSubDelim(char c) {
        return switch (c) {
            case '!', '$', '&', '\'', '(', ')', '*', '+', ',', ';', '=' -> true;
            default -> false;
        };
    }

    private static boolean isHex(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }
}
