package io.loomgate.upstream;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * How a route spreads its requests over its endpoints and keeps bad ones out: the balancer, the endpoints' weights,
 * the optional active health check and the optional passive outlier detection.
 *
 * @param policy      which balancer ({@link Policy#LEAST_REQUEST} by default)
 * @param hashKey     for {@link Policy#HASH}: what identifies a client, {@code header:NAME}, {@code cookie:NAME} or
 *                    {@code client-ip}; null otherwise
 * @param weights     one per endpoint, in the definition's order, each ≥ 1
 * @param healthCheck null: no active checks (every endpoint counts as healthy)
 * @param outliers    null: no passive ejection
 */
public record Balancing(Policy policy, String hashKey, List<Integer> weights, HealthCheck healthCheck,
                        OutlierDetection outliers) {
    public Balancing {
        Objects.requireNonNull(policy, "policy");
        if ((policy == Policy.HASH) != (hashKey != null)) {
            throw new IllegalArgumentException("a hash key goes with load-balancer: hash, and only with it");
        }
        if (hashKey != null && !hashKey.equals("client-ip") && !hashKey.matches("(header|cookie):[!#$%&'*+.^_`|~0-9A-Za-z-]+")) {
            throw new IllegalArgumentException("hash key: expected header:NAME, cookie:NAME or client-ip, got '"
                    + hashKey + "'");
        }
        weights = List.copyOf(weights);
        for (int w : weights) {
            if (w < 1) {
                throw new IllegalArgumentException("endpoint weight must be at least 1, not " + w);
            }
        }
    }

    /** Least-request, equal weights, no checks, no ejection: for {@code n} endpoints. */
    public static Balancing defaults(int n) {
        return new Balancing(Policy.LEAST_REQUEST, null, Collections.nCopies(n, 1), null, null);
    }

    /** The balancers a route may name with {@code load-balancer:}. */
    public enum Policy {
        /** Power of two choices on requests in flight, weighted (Envoy, Finagle). */
        LEAST_REQUEST("least-request"),
        /** In turn, weighted. */
        ROUND_ROBIN("round-robin"),
        /** At random, weighted. */
        RANDOM("random"),
        /** Consistent hashing on a request key: one key sticks to one endpoint. */
        HASH("hash");

        private final String configName;

        Policy(String configName) {
            this.configName = configName;
        }

        public String configName() {
            return configName;
        }

        /** The policy written {@code name} in a config file, or null. */
        public static Policy named(String name) {
            for (Policy p : values()) {
                if (p.configName.equals(name)) {
                    return p;
                }
            }
            return null;
        }
    }

    /**
     * An active health check: {@code GET path} on a connection of its own every {@code interval} (jittered), answered
     * within {@code timeout} with a status in {@code [minStatus, maxStatus]}. An endpoint turns unhealthy after
     * {@code unhealthyThreshold} failed checks in a row and healthy again after {@code healthyThreshold} good ones.
     * With {@code grpcService} (not null) the check is instead a call of the standard gRPC health service,
     * {@code grpc.health.v1.Health/Check} for that service name ("" for the server as a whole), passed when it answers
     * SERVING.
     */
    public record HealthCheck(String path, Duration interval, Duration timeout, int healthyThreshold,
                              int unhealthyThreshold, int minStatus, int maxStatus, String grpcService) {
        public static final HealthCheck DEFAULTS = new HealthCheck("/health", Duration.ofSeconds(2),
                Duration.ofSeconds(1), 2, 2, 200, 399);

        /** A {@code GET path} check. */
        public HealthCheck(String path, Duration interval, Duration timeout, int healthyThreshold,
                           int unhealthyThreshold, int minStatus, int maxStatus) {
            this(path, interval, timeout, healthyThreshold, unhealthyThreshold, minStatus, maxStatus, null);
        }

        /** Whether the check calls {@code grpc.health.v1.Health/Check} rather than {@code GET path}. */
        public boolean grpc() {
            return grpcService != null;
        }

        public HealthCheck {
            if (!path.startsWith("/")) {
                throw new IllegalArgumentException("health-check path must start with '/', not '" + path + "'");
            }
            if (interval.isNegative() || interval.isZero() || timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("health-check interval and timeout must be positive");
            }
            if (healthyThreshold < 1 || unhealthyThreshold < 1) {
                throw new IllegalArgumentException("health-check thresholds must be at least 1");
            }
            if (minStatus < 100 || maxStatus > 599 || minStatus > maxStatus) {
                throw new IllegalArgumentException("expected-statuses must be a range within 100-599, like 200-399");
            }
        }

        boolean expects(int status) {
            return status >= minStatus && status <= maxStatus;
        }
    }

    /**
     * Passive outlier detection: after {@code consecutiveFailures} failures in a row (connect error, reset, timeout,
     * or 502/503/504 from the origin) an endpoint gets no traffic for {@code baseEjectionTime} × the number of times
     * it was ejected (at most {@link #MAX_EJECTION_MULTIPLIER} ×), as long as no more than
     * {@code maxEjectionPercent} of the endpoints are ejected at once.
     */
    public record OutlierDetection(int consecutiveFailures, Duration baseEjectionTime, int maxEjectionPercent) {
        public static final OutlierDetection DEFAULTS = new OutlierDetection(5, Duration.ofSeconds(10), 50);
        /** Caps the back-off of an endpoint that keeps failing: 10 × base (Envoy caps at max_ejection_time). */
        public static final int MAX_EJECTION_MULTIPLIER = 10;

        public OutlierDetection {
            if (consecutiveFailures < 1) {
                throw new IllegalArgumentException("consecutive-failures must be at least 1");
            }
            if (baseEjectionTime.isNegative() || baseEjectionTime.isZero()) {
                throw new IllegalArgumentException("base-ejection-time must be positive");
            }
            if (maxEjectionPercent < 0 || maxEjectionPercent > 100) {
                throw new IllegalArgumentException("max-ejection-percent must be within 0-100");
            }
        }
    }
}
