package io.loomgate.cli;

import com.sun.management.UnixOperatingSystemMXBean;
import io.loomgate.config.GatewayConfig;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
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
        long limit = limit();
        long open = open();
        if (limit < 0 || open < 0) {
            return Integer.MAX_VALUE;
        }
        long free = limit - open - RESERVE_NOW;
        return (int) Math.clamp(free / 2, 1, Integer.MAX_VALUE);
    }

    static void check(GatewayConfig cfg) {
        long limit = limit();
        if (limit < 0) {
            return;
        }
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

    /*
     * Linux's own files first, the platform MXBean elsewhere: the MXBean is what reads them there too (getrlimit, a
     * listing of /proc/self/fd), but the first call of ManagementFactory sets up the platform's MXBean providers and
     * the JVM's container metrics (cgroup files read and parsed), about 5 ms of the main thread before the listener
     * accepts; the JVM metrics set those up anyway, once the gateway serves.
     */

    /** The soft limit of open files (the process's {@code ulimit -n}); -1 when unknown. */
    static long limit() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
                if (line.startsWith("Max open files")) {
                    String soft = line.substring("Max open files".length()).trim().split("\\s+")[0];
                    return soft.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(soft);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or no /proc: below
        }
        return ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean os
                ? os.getMaxFileDescriptorCount() : -1;
    }

    /** Descriptors open now; -1 when unknown. */
    static long open() {
        Path fds = Path.of("/proc/self/fd");
        if (Files.isDirectory(fds)) {
            try (Stream<Path> open = Files.list(fds)) {
                return open.count() - 1; // less the listing's own
            } catch (IOException | RuntimeException e) {
                // below
            }
        }
        return ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean os
                ? os.getOpenFileDescriptorCount() : -1;
    }
}
