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
 */
public record BackendSettings(String address, int port, ThreadModel threads, Duration latency, String jdbcUrl,
                              int dbPoolSize, boolean startDb) {

    public BackendSettings {
        if (latency.isNegative()) {
            throw new IllegalArgumentException("latency must not be negative, got " + latency);
        }
        if (dbPoolSize < 1) {
            throw new IllegalArgumentException("the database pool needs at least 1 connection, got " + dbPoolSize);
        }
    }

    /** Virtual threads, 100 ms latency, a pool of 10, the bundled database started lazily. */
    public static BackendSettings defaults(String address, int port) {
        return new BackendSettings(address, port, ThreadModel.VIRTUAL, Duration.ofMillis(100), null, 10, false);
    }

    public BackendSettings withThreads(ThreadModel model) {
        return new BackendSettings(address, port, model, latency, jdbcUrl, dbPoolSize, startDb);
    }

    public BackendSettings withLatency(Duration newLatency) {
        return new BackendSettings(address, port, threads, newLatency, jdbcUrl, dbPoolSize, startDb);
    }
}
