package io.loomgate.proxy;

import io.loomgate.http.Headers;
import java.util.Locale;
import java.util.Set;

/**
 * Removes the fields that describe one connection rather than the message (RFC 9110 §7.6.1): Connection and every
 * field it names, Keep-Alive, Proxy-Connection, TE, Trailer, Upgrade and Transfer-Encoding (bodies are reframed on
 * each side). Content-Length is left to the caller, which knows the framing it will use.
 *
 * <p>Connection cannot name Host or the forwarding fields ({@link #IMMUNE}): a client listing them would otherwise
 * remove the Host a {@code preserve-host} route forwards, or the chain a trusted proxy before us wrote.
 */
final class HopByHop {
    private static final String[] FIXED = {"Keep-Alive", "Proxy-Connection", "TE", "Trailer", "Upgrade",
        "Transfer-Encoding"};
    /** End-to-end by definition; a Connection token naming one of these is ignored. */
    static final Set<String> IMMUNE = Set.of("host", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto",
            "x-forwarded-port", "forwarded", "via");

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
                if (!token.isEmpty() && !token.equalsIgnoreCase("Connection")
                        && !IMMUNE.contains(token.toLowerCase(Locale.ROOT))) {
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
