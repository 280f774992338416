package io.loomgate.cli;

import io.loomgate.config.GatewayConfig;
import java.lang.management.ManagementFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks at start-up that the configured limits fit in the process's file descriptors: every client connection and
 * every upstream connection is one descriptor, and running out turns into failed accepts and failed dials under load.
 * Admission control (max-connections, pool max-connections) is what keeps errors at zero, so it must fit the budget.
 */
final class FdBudget {
    private static final Logger log = LoggerFactory.getLogger(FdBudget.class);
    /** Descriptors the JVM itself, the admin listener, logs and jars need. */
    private static final long RESERVE = 200;
    /** Descriptors kept free while the start finishes in the background (see {@link #connectionsThatFit()}). */
    private static final long RESERVE_NOW = 64;

    private FdBudget() {
    }

    /**
     * Client connections that fit in the descriptors free now, each with a connection to an origin, leaving
     * {@link #RESERVE_NOW} for what the process opens next (JFR's chunk file, logs, the admin's clients); the largest
     * int when the limit cannot be read.
     */
    static int connectionsThatFit() {
        if (!(ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean os)) {
            return Integer.MAX_VALUE;
        }
        long free = os.getMaxFileDescriptorCount() - os.getOpenFileDescriptorCount() - RESERVE_NOW;
        return (int) Math.clamp(free / 2, 1, Integer.MAX_VALUE);
    }

    static void check(GatewayConfig cfg) {
        if (!(ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean os)) {
            return;
        }
        long limit = os.getMaxFileDescriptorCount();
        // Each endpoint's pool, with the limits of the first upstream naming it (as Upstreams makes them).
        java.util.Map<java.net.URI, Integer> pools = new java.util.LinkedHashMap<>();
        cfg.upstreams().values().forEach(u -> u.uris().forEach(uri -> pools.putIfAbsent(uri,
                u.pool().maxConnections())));
        cfg.routes().forEach(r -> r.uris().forEach(uri -> pools.putIfAbsent(uri,
                cfg.upstreamDefaults().maxConnections())));
        long endpoints = pools.size();
        long upstreamConnections = pools.values().stream().mapToLong(Integer::longValue).sum();
        long needed = cfg.server().listener().maxConnections() + upstreamConnections + RESERVE;
        if (needed > limit) {
            log.warn("file descriptor budget: max-connections {} + {} endpoint(s)' pool max-connections {} + {} "
                            + "reserve = {} exceeds the limit of {}; lower them or raise 'ulimit -n', or connections "
                            + "will fail under load", cfg.server().listener().maxConnections(), endpoints,
                    upstreamConnections, RESERVE, needed, limit);
        } else {
            log.debug("file descriptor budget {} of {}", needed, limit);
        }
    }
}
