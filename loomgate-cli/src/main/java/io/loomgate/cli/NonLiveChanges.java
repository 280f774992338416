package io.loomgate.cli;

import io.loomgate.config.GatewayConfig;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Which parts of a configuration a live reload may change. Live: {@code routes}, {@code upstream} (pool settings)
 * and {@code logging.levels}. Not live, because they belong to objects made once at start-up: every {@code server}
 * key (the listener's address and port, its thread model, limits and timeouts), {@code admin}, {@code access-log},
 * {@code redis} (the rate limiter's one shared store) and {@code logging.format}. A reload whose file changes one of those is refused whole, naming each key.
 */
final class NonLiveChanges {
    private NonLiveChanges() {
    }

    /** The keys that differ and cannot change live, e.g. {@code server.port (8080 → 8081)}; empty when none. */
    static List<String> between(GatewayConfig running, GatewayConfig next) {
        List<String> out = new ArrayList<>();
        differences("server", running.server(), next.server(), out);
        differences("admin", running.admin(), next.admin(), out);
        differences("access-log", running.accessLog(), next.accessLog(), out);
        if (!Objects.equals(running.redis(), next.redis())) {
            out.add("redis (the rate limiter's shared store)"); // no values: the url may hold a password
        }
        if (!running.logging().format().equals(next.logging().format())) {
            out.add("logging.format (" + running.logging().format() + " → " + next.logging().format() + ")");
        }
        return out;
    }

    /** Whether the live parts are equal too: the new file would change nothing. */
    static boolean sameLiveParts(GatewayConfig running, GatewayConfig next) {
        return running.routes().equals(next.routes()) && running.upstreamDefaults().equals(next.upstreamDefaults())
                && running.logging().equals(next.logging());
    }

    private static void differences(String section, Record a, Record b, List<String> out) {
        for (RecordComponent c : a.getClass().getRecordComponents()) {
            Object x = value(c, a);
            Object y = value(c, b);
            if (!Objects.equals(x, y)) {
                out.add(section + "." + kebab(c.getName()) + " (" + x + " → " + y + ")");
            }
        }
    }

    private static Object value(RecordComponent c, Record r) {
        try {
            return c.getAccessor().invoke(r);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read " + c, e);
        }
    }

    /** {@code maxConnections} → {@code max-connections}, as the file writes it. */
    static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
    }
}
