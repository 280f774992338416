package io.loomgate.proxy;

import io.loomgate.http.Headers;

/**
 * Removes the fields that describe one connection rather than the message (RFC 9110 §7.6.1): Connection and every
 * field it names, Keep-Alive, Proxy-Connection, TE, Trailer, Upgrade and Transfer-Encoding (bodies are reframed on
 * each side). Content-Length is left to the caller, which knows the framing it will use.
 */
final class HopByHop {
    private static final String[] FIXED = {"Keep-Alive", "Proxy-Connection", "TE", "Trailer", "Upgrade",
        "Transfer-Encoding"};

    private HopByHop() {
    }

    static void strip(Headers h) {
        // Tokens named by Connection go first, while Connection is still there to name them.
        for (int i = h.indexOf("Connection", 0); i >= 0; i = h.indexOf("Connection", i + 1)) {
            String list = h.value(i);
            int start = 0;
            while (start <= list.length()) {
                int comma = list.indexOf(',', start);
                int end = comma < 0 ? list.length() : comma;
                String token = list.substring(start, end).trim();
                if (!token.isEmpty() && !token.equalsIgnoreCase("Connection")) {
                    h.remove(token);
                }
                start = end + 1;
            }
        }
        h.remove("Connection");
        for (String name : FIXED) {
            h.remove(name);
        }
    }
}
