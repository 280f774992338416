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
        d.put(GatewayConfig.class, components(
                "source", "(the file's path)", Reload.NOT_A_SETTING,
                "server", "server", Reload.SECTION,
                "admin", "admin", Reload.SECTION,
                "accessLog", "access-log", Reload.SECTION,
                // Pool settings are compared whole by Upstreams.reconcile: a changed one opens new pools.
                "upstreamDefaults", "upstream.* (pool settings)", Reload.LIVE,
                // Named upstreams are built anew by every reload, as routes' own are (Upstreams.reconcile).
                "upstreams", "upstreams", Reload.LIVE,
                // Routes (with their filters, predicates and origins) are built anew by every reload.
                "routes", "routes", Reload.LIVE,
                "redis", "redis", Reload.RESTART_WITHOUT_VALUES,
                "tls", "ssl", Reload.SECTION,
                "logging", "logging", Reload.SECTION,
                // The tracer (its exporter, queue and sampler) is made once at start-up.
                "tracing", "tracing", Reload.SECTION));
        d.put(GatewayConfig.ServerSpec.class, components(
                "listener", "server", Reload.SECTION,
                "threads", "server.threads", Reload.RESTART,
                "drainTimeout", "server.drain-timeout", Reload.RESTART,
                "trustedProxies", "server.trusted-proxies", Reload.RESTART,
                "stripRequestHeaders", "server.strip-request-headers", Reload.RESTART,
                "transport", "server.transport", Reload.RESTART));
        d.put(ListenerSettings.class, components(
                "address", "server.address", Reload.RESTART,
                "port", "server.port", Reload.RESTART,
                "backlog", "server.backlog", Reload.RESTART,
                "maxConnections", "server.max-connections", Reload.RESTART,
                "headerTimeout", "server.header-timeout", Reload.RESTART,
                "idleTimeout", "server.idle-timeout", Reload.RESTART,
                "readTimeout", "server.read-timeout", Reload.RESTART,
                "limits", "server.max-request-line, server.max-header-size, server.max-headers", Reload.RESTART,
                "http2", "server.http2", Reload.RESTART,
                "underscoresInHeaders", "server.underscores-in-headers", Reload.RESTART));
        d.put(GatewayConfig.AdminSpec.class, components(
                "address", "admin.address", Reload.RESTART,
                "port", "admin.port", Reload.RESTART,
                "pinnedThreshold", "admin.pinned-threshold", Reload.RESTART,
                "authToken", "admin.auth-token", Reload.RESTART_WITHOUT_VALUES,
                "allowedHosts", "admin.allowed-hosts", Reload.RESTART,
                "probePath", "admin.probe-path", Reload.RESTART));
        d.put(GatewayConfig.AccessLogSpec.class, components(
                "enabled", "access-log.enabled", Reload.RESTART,
                "format", "access-log.format", Reload.RESTART));
        d.put(GatewayConfig.TracingSpec.class, components(
                "enabled", "tracing.enabled", Reload.RESTART,
                "endpoint", "tracing.endpoint", Reload.RESTART,
                "sampler", "tracing.sampler", Reload.RESTART,
                "serviceName", "tracing.service-name", Reload.RESTART,
                "queueSize", "tracing.queue-size", Reload.RESTART));
        d.put(GatewayConfig.LoggingSpec.class, components(
                "format", "logging.format", Reload.RESTART,
                "levels", "logging.levels", Reload.LIVE));
        d.put(GatewayConfig.TlsSpec.class, components(
                "server", "server.ssl", Reload.SECTION,
                "httpRedirectPort", "server.http-redirect-port", Reload.RESTART,
                "admin", "admin.ssl", Reload.RESTART,
                "upstream", "upstream.ssl", Reload.RESTART));
        d.put(ServerTlsSettings.class, components(
                // Swapped into the listener's key manager (Gateway.reload), as TlsReloader does when a file changes.
                "certificates", "server.ssl certificates (certificate, certificate-private-key, key-store..., "
                        + "server-names)", Reload.LIVE,
                "protocols", "server.ssl.enabled-protocols", Reload.RESTART,
                "ciphers", "server.ssl.ciphers", Reload.RESTART,
                "clientAuth", "server.ssl.client-auth", Reload.RESTART,
                "trustCertificate", "server.ssl.trust-certificate", Reload.RESTART,
                "sessionResumption", "server.ssl.session-resumption", Reload.RESTART,
                "applicationProtocols", "server.ssl ALPN protocols (from server.http2)", Reload.RESTART,
                "provider", "server.ssl.provider", Reload.RESTART));
        return d;
    }

    private static Map<String, Declared> components(Object... componentKeyReload) {
        Map<String, Declared> out = new LinkedHashMap<>();
        for (int i = 0; i < componentKeyReload.length; i += 3) {
            out.put((String) componentKeyReload[i],
                    new Declared((String) componentKeyReload[i + 1], (Reload) componentKeyReload[i + 2]));
        }
        return out;
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
