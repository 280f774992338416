package io.loomgate.cli;

import io.loomgate.config.GatewayConfig;
import io.loomgate.server.ListenerSettings;
import io.loomgate.tls.ServerTlsSettings;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * What a live reload does with each part of a configuration, declared for every component of
 * {@link GatewayConfig} and of the records it holds, so the decision is total: a part is live (applied by
 * {@link ConfigReloader}), or it needs a restart (a reload whose file changes it is refused whole, naming the key),
 * or it is a section whose own components are declared the same way. Live: {@code routes}, {@code upstreams},
 * {@code upstream} (pool settings: a changed one opens new pools), {@code logging.levels} and the certificates of
 * {@code server.ssl} (the key manager is swapped, as a file change does). Not live, because they belong to objects
 * made once at start-up: every other {@code server} key (the listener's address and port, its thread model, limits, timeouts and the rest
 * of {@code server.ssl}), {@code server.http-redirect-port}, {@code admin} and {@code admin.ssl},
 * {@code access-log}, {@code redis} (the rate limiter's one shared store), {@code upstream.ssl} (made when the first
 * https:// origin is), {@code logging.format} and {@code tracing} (the tracer and its exporter). A component nobody declared counts as needing a restart, and
 * {@code NonLiveChangesTest} fails until it is declared.
 */
final class NonLiveChanges {

    /** What a reload does with one component. */
    enum Reload {
        /** Applied by the reload. */
        LIVE,
        /** Made once at start-up: a change is refused as needs_restart, naming the key and both values. */
        RESTART,
        /** As {@link #RESTART}, naming the key without its values (they may hold a password). */
        RESTART_WITHOUT_VALUES,
        /** A record whose components are declared one by one; added or removed whole, it needs a restart. */
        SECTION,
        /** Not a setting: where the file was read from. */
        NOT_A_SETTING
    }

    /** The declaration of one component: its key as the file writes it, and what a reload does with it. */
    record Declared(String key, Reload reload) {
    }

    /** Every configuration record's components, in declaration order, with their keys and what a reload does. */
    static final Map<Class<? extends Record>, Map<String, Declared>> DECLARED = declarations();

    private static Map<Class<? extends Record>, Map<String, Declared>> declarations() {
        Map<Class<? extends Record>, Map<String, Declared>> d = new LinkedHashMap<>();
        d.put(GatewayConfig.class, new Components("")
                .declare("source", "(the file's path)", Reload.NOT_A_SETTING)
                .declare("server", "server", Reload.SECTION)
                .declare("admin", "admin", Reload.SECTION)
                .declare("accessLog", "access-log", Reload.SECTION)
                // Pool settings are compared whole by Upstreams.reconcile: a changed one opens new pools.
                .declare("upstreamDefaults", "upstream.* (pool settings)", Reload.LIVE)
                // Named upstreams are built anew by every reload, as routes' own are (Upstreams.reconcile).
                .declare("upstreams", "upstreams", Reload.LIVE)
                // Routes (with their filters, predicates and origins) are built anew by every reload.
                .declare("routes", "routes", Reload.LIVE)
                .declare("redis", "redis", Reload.RESTART_WITHOUT_VALUES)
                .declare("tls", "ssl", Reload.SECTION)
                .declare("logging", "logging", Reload.SECTION)
                // The tracer (its exporter, queue and sampler) is made once at start-up.
                .declare("tracing", "tracing", Reload.SECTION).map());
        d.put(GatewayConfig.ServerSpec.class, new Components("server")
                .declare("listener", "server", Reload.SECTION)
                .restart("threads", "drainTimeout", "trustedProxies", "stripRequestHeaders", "transport").map());
        d.put(ListenerSettings.class, new Components("server")
                .restart("address", "port", "backlog", "maxConnections", "headerTimeout", "idleTimeout", "readTimeout")
                .declare("limits", "server.max-request-line, server.max-header-size, server.max-headers",
                        Reload.RESTART)
                .restart("http2", "underscoresInHeaders", "lingerTimeout").map());
        d.put(GatewayConfig.AdminSpec.class, new Components("admin")
                .restart("address", "port", "pinnedThreshold")
                .declare("authToken", "admin.auth-token", Reload.RESTART_WITHOUT_VALUES)
                .restart("allowedHosts", "probePath").map());
        d.put(GatewayConfig.AccessLogSpec.class, new Components("access-log").restart("enabled", "format").map());
        d.put(GatewayConfig.TracingSpec.class, new Components("tracing")
                .restart("enabled", "endpoint", "sampler", "serviceName", "queueSize").map());
        d.put(GatewayConfig.LoggingSpec.class, new Components("logging")
                .restart("format")
                .declare("levels", "logging.levels", Reload.LIVE).map());
        d.put(GatewayConfig.TlsSpec.class, new Components("server")
                .declare("server", "server.ssl", Reload.SECTION)
                .restart("httpRedirectPort")
                .declare("admin", "admin.ssl", Reload.RESTART)
                .declare("upstream", "upstream.ssl", Reload.RESTART).map());
        d.put(ServerTlsSettings.class, new Components("server.ssl")
                // Swapped into the listener's key manager (Gateway.reload), as TlsReloader does when a file changes.
                .declare("certificates", "server.ssl certificates (certificate, certificate-private-key, "
                        + "key-store..., server-names)", Reload.LIVE)
                .declare("protocols", "server.ssl.enabled-protocols", Reload.RESTART)
                .restart("ciphers", "clientAuth", "trustCertificate", "sessionResumption")
                .declare("applicationProtocols", "server.ssl ALPN protocols (from server.http2)", Reload.RESTART)
                .restart("provider").map());
        return d;
    }

    /**
     * One record's declarations, in the order of its components. Most keys are the component's name as the file
     * writes it, under the section's prefix ({@code maxConnections} under {@code server} is
     * {@code server.max-connections}), so they are derived rather than written twice; the others are declared with
     * their key.
     */
    private static final class Components {
        private final String prefix;
        private final Map<String, Declared> declared = new LinkedHashMap<>();

        Components(String prefix) {
            this.prefix = prefix;
        }

        /** Components that need a restart, each under its derived key. */
        Components restart(String... components) {
            for (String c : components) {
                declared.put(c, new Declared(prefix + "." + kebab(c), Reload.RESTART));
            }
            return this;
        }

        Components declare(String component, String key, Reload reload) {
            declared.put(component, new Declared(key, reload));
            return this;
        }

        Map<String, Declared> map() {
            return declared;
        }
    }

    /** What differs between two configurations: keys that need a restart (with values), and live keys. */
    record Changes(List<String> restart, List<String> live) {
    }

    private NonLiveChanges() {
    }

    /** The keys that differ and cannot change live, e.g. {@code server.port (8080 → 8081)}; empty when none. */
    static List<String> between(GatewayConfig running, GatewayConfig next) {
        return changes(running, next).restart();
    }

    /** The live keys that differ (e.g. {@code routes}); empty when the file changes nothing that reloads live. */
    static List<String> liveChanges(GatewayConfig running, GatewayConfig next) {
        return changes(running, next).live();
    }

    static Changes changes(GatewayConfig running, GatewayConfig next) {
        Changes out = new Changes(new ArrayList<>(), new ArrayList<>());
        compare(running, next, out);
        return out;
    }

    private static void compare(Record a, Record b, Changes out) {
        Map<String, Declared> declared = DECLARED.getOrDefault(a.getClass(), Map.of());
        for (RecordComponent c : a.getClass().getRecordComponents()) {
            Object x = value(c, a);
            Object y = value(c, b);
            if (Objects.equals(x, y)) {
                continue;
            }
            // Undeclared (NonLiveChangesTest fails on it): the safe answer is a restart.
            Declared d = declared.getOrDefault(c.getName(),
                    new Declared(a.getClass().getSimpleName() + "." + c.getName(), Reload.RESTART));
            switch (d.reload()) {
                case LIVE -> out.live().add(d.key());
                case RESTART -> out.restart().add(d.key() + " (" + x + " → " + y + ")");
                case RESTART_WITHOUT_VALUES -> out.restart().add(d.key() + " (values not shown: they may hold a "
                        + "password)");
                case SECTION -> {
                    if (x instanceof Record rx && y instanceof Record ry) {
                        compare(rx, ry, out);
                    } else { // added or removed whole: what is made from it is made at start-up
                        out.restart().add(d.key() + " (" + (x == null ? "none" : "set") + " → "
                                + (y == null ? "none" : "set") + ")");
                    }
                }
                case NOT_A_SETTING -> {
                }
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
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    /**
     * The table of docs/configuration.md's "Live reload" section: every key and whether it reloads live, in the
     * order the configuration's records hold them.
     */
    static String markdownTable() {
        StringBuilder t = new StringBuilder("| Key | On reload |\n|---|---|\n");
        appendRows(GatewayConfig.class, t);
        return t.toString();
    }

    private static void appendRows(Class<?> type, StringBuilder t) {
        for (RecordComponent c : type.getRecordComponents()) {
            Declared d = DECLARED.getOrDefault(type, Map.of()).get(c.getName());
            if (d == null) {
                continue;
            }
            switch (d.reload()) {
                case LIVE -> t.append("| ").append(d.key()).append(" | applied live |\n");
                case RESTART, RESTART_WITHOUT_VALUES -> t.append("| ").append(d.key()).append(" | needs a restart |\n");
                case SECTION -> appendRows(c.getType(), t);
                case NOT_A_SETTING -> {
                }
            }
        }
    }
}
