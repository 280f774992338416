package io.loomgate.lab.backend;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.loomgate.server.ServerExchange;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The database behind {@code /db}: a HikariCP pool over a JDBC URL, or over the bundled PostgreSQL when no URL was
 * given. Started once, on the first {@code /db} (or at start-up when asked); requests that arrive meanwhile wait for
 * it. If it cannot start, every {@code /db} gets a 503 that says why, and the other endpoints are unaffected.
 *
 * <p>States: not started → started (pool open) or failed (reason kept) → closed.
 */
final class Database implements AutoCloseable {
    /** The query of the realistic endpoint: 50 ms inside the database, holding a pooled connection. */
    static final String QUERY = "SELECT pg_sleep(0.05)";
    private static final Duration CPU_WORK = Duration.ofMillis(10);

    private final String jdbcUrl;
    private final int poolSize;
    private final Duration startTimeout;
    private final ReentrantLock lock = new ReentrantLock();
    private HikariDataSource pool;
    private LocalPostgres postgres;
    private String failure;
    private boolean closed;

    Database(String jdbcUrl, int poolSize, Duration startTimeout) {
        this.jdbcUrl = jdbcUrl;
        this.poolSize = poolSize;
        this.startTimeout = startTimeout;
    }

    String describe() {
        return (jdbcUrl == null ? "bundled PostgreSQL (started on first /db)" : jdbcUrl) + ", pool of " + poolSize;
    }

    /** Starts the pool (and the bundled database) if not yet started; returns a description of it. */
    String start() throws IOException {
        HikariDataSource ds = pool();
        if (ds == null) {
            throw new IOException(failure);
        }
        return ds.getJdbcUrl() + ", pool of " + poolSize;
    }

    void serve(ServerExchange ex) throws IOException {
        HikariDataSource ds = pool();
        if (ds == null) {
            ex.respond(503, "no database for /db: " + failure + "\n");
            return;
        }
        long started = System.nanoTime();
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute(QUERY);
        } catch (SQLException e) {
            ex.respond(503, "database query failed: " + e.getMessage() + "\n");
            return;
        }
        long queryMicros = (System.nanoTime() - started) / 1000;
        long checksum = CpuWork.burn(CPU_WORK);
        ex.respond(200, "application/json", ("{\"queryMicros\":" + queryMicros + ",\"cpuMs\":" + CPU_WORK.toMillis()
                + ",\"checksum\":\"" + Long.toHexString(checksum) + "\"}\n").getBytes(StandardCharsets.US_ASCII));
    }

    /** The pool, started on first use; null when the database could not be started ({@link #failure} says why). */
    private HikariDataSource pool() {
        lock.lock();
        try {
            if (pool == null && failure == null && !closed) {
                open();
            }
            return pool;
        } finally {
            lock.unlock();
        }
    }

    private void open() {
        String url = jdbcUrl;
        try {
            if (url == null) {
                postgres = LocalPostgres.start(poolSize + 5);
                url = postgres.jdbcUrl();
            }
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(url);
            config.setUsername(postgres != null ? "postgres" : null);
            config.setMaximumPoolSize(poolSize);
            config.setMinimumIdle(poolSize);
            config.setPoolName("mock-origin-db");
            config.setConnectionTimeout(30_000);
            config.setInitializationFailTimeout(startTimeout.toMillis());
            pool = new HikariDataSource(config);
        } catch (IOException | RuntimeException e) {
            failure = (url == null ? "the bundled PostgreSQL did not start" : "cannot connect to " + url) + ": "
                    + e.getMessage() + " (give a running server with --jdbc-url)";
            closeQuietly();
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            closeQuietly();
        } finally {
            lock.unlock();
        }
    }

    private void closeQuietly() {
        if (pool != null) {
            pool.close();
            pool = null;
        }
        if (postgres != null) {
            postgres.close();
            postgres = null;
        }
    }
}
