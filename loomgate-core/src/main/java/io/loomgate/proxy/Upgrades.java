package io.loomgate.proxy;

import io.loomgate.http.Headers;
import io.loomgate.http.ResponseHead;
import io.loomgate.http1.HttpParseException;
import io.loomgate.route.Route;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Which protocol switches a request may ask of the origin. After a 101 the gateway only pipes bytes: no route,
 * filter or limit sees what passes, so a switch is forwarded only to protocols the route allows ({@code upgrades},
 * WebSocket by default), never to {@code h2c} (its requests would reach any path with any method; RFC 9113 §3.1
 * deprecates it), and the origin's 101 must name one of those. An Upgrade the route does not allow is removed, so
 * the origin answers the request as plain HTTP/1.1 (RFC 9110 §7.8 lets a server ignore Upgrade).
 */
final class Upgrades {
    private Upgrades() {
    }

    /** The protocols of this request's Upgrade the route allows, in order (empty: forward no upgrade). */
    static List<String> allowed(Headers h, Route route) {
        List<String> out = new ArrayList<>(1);
        for (String value : h.all("Upgrade")) {
            for (String token : value.split(",")) {
                String p = token.trim();
                if (!p.isEmpty() && !name(p).equals("h2c") && route.allowsUpgrade(p)) {
                    out.add(p);
                }
            }
        }
        return out;
    }

    /** Refuses a 101 that switches to a protocol the request did not ask for (or names none): the origin's bug. */
    static void checkSwitch(ResponseHead switching, List<String> asked) throws HttpParseException {
        String to = switching.headers().first("Upgrade");
        if (to != null) {
            for (String p : asked) {
                if (p.equalsIgnoreCase(to.trim())) {
                    return;
                }
            }
        }
        throw new HttpParseException(502, "101 Switching Protocols to '" + to + "', which the request did not ask "
                + "for (asked: " + String.join(", ", asked) + ")");
    }

    private static String name(String protocol) {
        int slash = protocol.indexOf('/');
        return (slash < 0 ? protocol : protocol.substring(0, slash)).trim().toLowerCase(Locale.ROOT);
    }
}
