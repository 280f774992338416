package io.loomgate.ratelimit;

import io.loomgate.filter.FilterFactory;
import java.lang.ref.WeakReference;
import java.util.concurrent.ConcurrentLinkedQueue;
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
    private OutageLog outages;
    private HoldOff holdOff;
    /** The local stores of the routes built (weakly: a replaced configuration's go with its routes). */
    private final ConcurrentLinkedQueue<WeakReference<LocalStore>> localStores = new ConcurrentLinkedQueue<>();

    /**
     * @param redis    the {@code redis:} section, or null when there is none (then {@code store: redis} is refused)
     * @param listener told of every decision and store failure; given {@link #localKeys} to report
     */
    public RateLimiting(RedisSettings redis, RateLimitListener listener) {
        this(redis, listener, System::nanoTime);
    }

    RateLimiting(RedisSettings redis, RateLimitListener listener, LongSupplier nanoTime) {
        this.redis = redis;
        this.listener = listener;
        this.nanoTime = nanoTime;
        listener.localKeys(this::localKeys);
    }

    public FilterFactory filterFactory() {
        return new RequestRateLimiterFactory(this);
    }

    RateLimitListener listener() {
        return listener;
    }

    /**
     * The store of one {@code RequestRateLimiter} filter: its own local buckets of at most {@code maxKeys} keys, or
     * the one shared Redis store with such local buckets behind it for {@code failure-mode: open}. Called while
     * routes are built, on one thread.
     */
    RateLimitStore store(String kind, int maxKeys) {
        if (kind.equals("local")) {
            return local(maxKeys);
        }
        if (redis == null) {
            throw new IllegalArgumentException("store: redis needs the Redis to use: add a top-level "
                    + "'redis:' section with 'url: redis://host:port'");
        }
        RateLimitStore shared = sharedRedis();
        return new FallbackStore(shared, local(maxKeys), redis.failureMode(), outages, holdOff, listener);
    }

    /** The Redis store every route shares, made on first use. */
    RateLimitStore sharedRedis() {
        if (redisStore == null) {
            redisStore = RedisStores.find().orElseThrow(() -> new IllegalArgumentException("store: redis needs the "
                    + "module " + RedisStores.MODULE + " (Jedis), which is not on the class path: add io.loomgate:"
                    + RedisStores.MODULE + " beside loomgate-core")).open(redis);
            outages = new OutageLog(redisStore.name(), redis.failureMode(), nanoTime, OutageLog.INTERVAL_NANOS);
            holdOff = new HoldOff(nanoTime);
        }
        return redisStore;
    }

    private LocalStore local(int maxKeys) {
        LocalStore s = LocalStore.swept(nanoTime, maxKeys);
        localStores.removeIf(r -> r.get() == null);
        localStores.add(new WeakReference<>(s));
        return s;
    }

    /** Keys held now in every local store of the routes served (and of replaced routes not yet collected). */
    public long localKeys() {
        long n = 0;
        for (WeakReference<LocalStore> r : localStores) {
            LocalStore s = r.get();
            if (s != null) {
                n += s.size();
            }
        }
        return n;
    }

    /** Stops the local stores' sweeps; closes the Redis pool, if one was made. */
    @Override
    public void close() {
        for (WeakReference<LocalStore> r : localStores) {
            LocalStore s = r.get();
            if (s != null) {
                s.close();
            }
        }
        if (redisStore != null) {
            redisStore.close();
        }
    }
}
