package io.loomgate.config;

import io.loomgate.server.ListenerSettings;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Origins that are this gateway's own listener: a route (or a named upstream) whose {@code uri} is the listener's
 * port on a loopback address (or the listener's own address). Every request sent there comes back with the instance's
 * {@code CDN-Loop} id and is answered 508 Loop Detected; on a {@code platform:N} pool the returning request first
 * needs one of the pool's threads while the request it came from holds another, so with few threads it waits for a
 * free one, up to the route's timeout (session 59's hunt: {@code platform:1} stalled every client for it). Said at load
 * as a warning naming file and line, not refused: a name that resolves to the gateway cannot be told at load, and the
 * answer at run time (508) is the same for both.
 */
public final class SelfRoutes {
    private static final Pattern LOOPBACK_V4 = Pattern.compile("127(\\.\\d{1,3}){3}");

    private SelfRoutes() {
    }

    /** One warning per route or named upstream whose origins include the gateway's own listener; none usually. */
    public static List<String> warnings(GatewayConfig config) {
        String file = config.source() == null ? "<config>" : config.source().toString();
        ListenerSettings listener = config.server().listener();
        List<Integer> ports = new ArrayList<>(List.of(listener.port()));
        if (config.tls() != null && config.tls().httpRedirectPort() > 0) {
            ports.add(config.tls().httpRedirectPort());
        }
        List<String> out = new ArrayList<>();
        for (RouteSpec r : config.routes()) {
            if (!r.namesUpstream()) {
                warn(out, file, r.line(), "route '" + r.id() + "'", r.uris(), listener.address(), ports);
            }
        }
        for (Map.Entry<String, UpstreamSpec> u : config.upstreams().entrySet()) {
            warn(out, file, u.getValue().line(), "upstreams." + u.getKey(), u.getValue().uris(), listener.address(),
                    ports);
        }
        return out;
    }

    private static void warn(List<String> out, String file, int line, String context, List<URI> uris, String address,
                             List<Integer> ports) {
        for (URI uri : uris) {
            UpstreamUri u;
            try {
                u = UpstreamUri.of(uri);
            } catch (IllegalArgumentException e) {
                continue; // refused elsewhere, with its line
            }
            if (ports.contains(u.port()) && reaches(address, u.host())) {
                out.add(file + ":" + line + ": " + context + ": uri " + uri + " is this gateway's own listener: "
                        + "each request sent there comes back and is answered 508 Loop Detected (on a platform:N "
                        + "pool, only once a thread is free to take it); point it at the origin");
                return;
            }
        }
    }

    /** Whether a connection to {@code host} reaches a listener bound to {@code address} (same port). */
    static boolean reaches(String address, String host) {
        String h = host.toLowerCase(Locale.ROOT);
        if (address == null || address.isEmpty() || unspecified(address)) {
            return loopback(h) || unspecified(h);
        }
        String a = address.toLowerCase(Locale.ROOT);
        return a.equals(h) || loopback(a) && h.equals("localhost");
    }

    private static boolean loopback(String host) {
        return host.equals("localhost") || host.equals("::1") || host.equals("0:0:0:0:0:0:0:1")
                || LOOPBACK_V4.matcher(host).matches();
    }

    private static boolean unspecified(String host) {
        return host.equals("0.0.0.0") || host.equals("::") || host.equals("0:0:0:0:0:0:0:0") || host.equals("*");
    }
}
