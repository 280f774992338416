package io.loomgate.lab.backend;

import io.loomgate.threads.ThreadModel;
import java.time.Duration;

/**
 * How the mock origin runs.
 *
 * @param address    bind address
 * @param port       TCP port, 0 for an ephemeral one
 * @param threads    the thread model of its connections
 * @param latency    how long {@code /api/data} waits by default
 * @param jdbcUrl    the database behind {@code /db}; null to run the bundled PostgreSQL
 * @param dbPoolSize JDBC connections in the pool of {@code /db}
 * @param startDb    start the database at once instead of on the first {@code /db}
 * @param dbStartTimeout how long the pool keeps trying to reach the database before {@code /db} answers 503
 *                   (HikariCP's {@code initializationFailTimeout}); {@link #DB_START_TIMEOUT} unless a test that
 *                   points it at a closed port gives a shorter one rather than waiting the default out
 */
public record BackendSettings(String address, int port, ThreadModel threads, Duration latency, String jdbcUrl,
                              int dbPoolSize, boolean startDb, Duration dbStartTimeout) {

    /** The pool's start-up bound: a server that is starting or restarting gets that long. */
    public static final Duration DB_START_TIMEOUT = Duration.ofSeconds(10);

    public BackendSettings {
        if (latency.isNegative()) {
            throw new IllegalArgumentException("latency must not be negative, got " + latency);
        }
        if (dbStartTimeout.isNegative() || dbStartTimeout.isZero()) {
            throw new IllegalArgumentException("the database start timeout must be positive, got " + dbStartTimeout);
        }
        if (dbPoolSize < 1) {
            throw new IllegalArgumentException("the database pool needs at least 1 connection, got " + dbPoolSize);
        }
    }

    /** The settings with the database's default start-up bound. */
    public BackendSettings(String address, int port, ThreadModel threads, Duration latency, String jdbcUrl,
                           int dbPoolSize, boolean startDb) {
        this(address, port, threads, latency, jdbcUrl, dbPoolSize, startDb, DB_START_TIMEOUT);
    }

    /** Virtual threads, 100 ms latency, a pool of 10, the bundled database started lazily. */
    public static BackendSettings defaults(String address, int port) {
        return new BackendSettings(address, port, ThreadModel.VIRTUAL, Duration.ofMillis(100), null, 10, false);
    }

    public BackendSettings withThreads(ThreadModel model) {
        return new BackendSettings(address, port, model, latency, jdbcUrl, dbPoolSize, startDb, dbStartTimeout);
    }

    public BackendSettings withLatency(Duration newLatency) {
        return new BackendSettings(address, port, threads, newLatency, jdbcUrl, dbPoolSize, startDb, dbStartTimeout);
    }

    public BackendSettings withDbStartTimeout(Duration timeout) {
        return new BackendSettings(address, port, threads, latency, jdbcUrl, dbPoolSize, startDb, timeout);
    }
}
