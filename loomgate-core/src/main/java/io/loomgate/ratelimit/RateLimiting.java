package io.loomgate.ratelimit;

import io.loomgate.filter.FilterFactory;
import java.util.function.LongSupplier;

/**
 * The rate limiting of one gateway: the {@code RequestRateLimiter} filter factory to register, the one Redis store
 * every route with {@code store: redis} shares (one connection pool per gateway), and its lifecycle.
 *
 * <p>Lifecycle: construct with the configured Redis (or none) → register {@link #filterFactory()} in the
 * {@code FilterRegistry} the routes are built with → serve → {@link #close()} after the drain. The Redis pool is
 * made when the first route asks for it and dials Redis only when the first request comes, so building routes (a
 * config check) opens no connection.
 */
public final class RateLimiting implements AutoCloseable {
    private final RedisSettings redis;
    private final RateLimitListener listener;
    private final LongSupplier nanoTime;
    private RateLimitStore redisStore;

    /**
     * @param redis    the {@code redis:} section, or null when there is none (then {@code store: redis} is refused)
     * @param listener told of every decision and store failure
     */
    public RateLimiting(RedisSettings redis, RateLimitListener listener) {
        this(redis, listener, System::nanoTime);
    }

    RateLimiting(RedisSettings redis, RateLimitListener listener, LongSupplier nanoTime) {
        this.redis = redis;
        this.listener = listener;
        this.nanoTime = nanoTime;
    }

    public FilterFactory filterFactory() {
        return new RequestRateLimiterFactory(this);
    }

    RateLimitListener listener() {
        return listener;
    }

    /** A new local store per route; the one shared Redis store. Called while routes are built, on one thread. */
    RateLimitStore store(String kind) {
        if (kind.equals("local")) {
            return new LocalStore(nanoTime);
        }
        if (redis == null) {
            throw new IllegalArgumentException("store: redis needs the Redis to use: add a top-level "
                    + "'redis:' section with 'url: redis://host:port'");
        }
        if (redisStore == null) {
            redisStore = new FailOpenStore(new RedisStore(redis), listener);
        }
        return redisStore;
    }

    /** Closes the Redis pool, if one was made. */
    @Override
    public void close() {
        if (redisStore != null) {
            redisStore.close();
        }
    }
}
