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

    private FdBudget() {
    }

    static void check(GatewayConfig cfg) {
        if (!(ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean os)) {
            return;
        }
        long limit = os.getMaxFileDescriptorCount();
        long endpoints = cfg.routes().stream().flatMap(r -> r.uris().stream()).distinct().count();
        long needed = cfg.server().maxConnections() + endpoints * cfg.upstreamDefaults().maxConnections() + RESERVE;
        if (needed > limit) {
            log.warn("file descriptor budget: max-connections {} + {} endpoint(s) x upstream max-connections {} + {} "
                            + "reserve = {} exceeds the limit of {}; lower them or raise 'ulimit -n', or connections "
                            + "will fail under load", cfg.server().maxConnections(), endpoints,
                    cfg.upstreamDefaults().maxConnections(), RESERVE, needed, limit);
        } else {
            log.debug("file descriptor budget {} of {}", needed, limit);
        }
    }
}
