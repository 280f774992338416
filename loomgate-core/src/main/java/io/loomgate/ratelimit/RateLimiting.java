package io.loomgate.ratelimit;

import io.loomgate.reload.KeptAcrossReloads;
import io.loomgate.filter.FilterFactory;
import io.loomgate.filter.GatewayFilter;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
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
 *
 * <p>A gateway that reloads calls {@link #retain} before each build and after each swap, as it does for its JWKS key
 * sources and circuit breakers: from then on a limiter whose settings the routes served had too keeps their local
 * buckets ({@link KeptAcrossReloads}, keyed by {@link LimiterSettings}: the route's id and the limiter's arguments), so a client over its limit gets no fresh
 * burst from an unrelated reload. Without {@code retain} (a config check, an embedding building once) every build
 * makes its buckets anew, as before.
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
    /** The local stores kept across builds once {@link #retain} was called; null until then. */
    private volatile KeptAcrossReloads<LimiterSettings, LocalStore> kept;

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
        return store(kind, maxKeys, null);
    }

    /**
     * As {@link #store(String, int)}; {@code settings} (the limiter's arguments that decide its buckets' contents)
     * lets a gateway that keeps buckets ({@link #retain}) hand back the local buckets of a limiter built before with
     * the same settings.
     */
    RateLimitStore store(String kind, int maxKeys, LimiterSettings settings) {
        if (kind.equals("local")) {
            return local(maxKeys, settings);
        }
        if (redis == null) {
            throw new IllegalArgumentException("store: redis needs the Redis to use: add a top-level "
                    + "'redis:' section with 'url: redis://host:port'");
        }
        RateLimitStore shared = sharedRedis();
        return new FallbackStore(shared, local(maxKeys, settings), redis.failureMode(), outages, holdOff, listener);
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

    private LocalStore local(int maxKeys, LimiterSettings settings) {
        KeptAcrossReloads<LimiterSettings, LocalStore> k = kept;
        if (k != null && settings != null) {
            return k.keep(settings, () -> newLocal(maxKeys));
        }
        return newLocal(maxKeys);
    }

    private LocalStore newLocal(int maxKeys) {
        LocalStore s = LocalStore.swept(nanoTime, maxKeys);
        localStores.removeIf(r -> r.get() == null);
        localStores.add(new WeakReference<>(s));
        return s;
    }

    /**
     * Keeps, from now on, the local buckets of the {@code RequestRateLimiter} filters among {@code served} (those of
     * the routes served now) for the next build, and forgets the rest (those of an assembly built and never served
     * go too). Called by a reloading gateway before each build and after each swap.
     */
    public void retain(Iterable<GatewayFilter> served) {
        KeptAcrossReloads<LimiterSettings, LocalStore> k = kept;
        if (k == null) {
            k = new KeptAcrossReloads<>();
            kept = k;
        }
        List<LocalStore> used = new ArrayList<>();
        for (GatewayFilter f : served) {
            if (f instanceof RequestRateLimiterFilter r) {
                if (r.store() instanceof LocalStore l) {
                    used.add(l);
                } else if (r.store() instanceof FallbackStore fb) {
                    used.add(fb.fallback());
                }
            }
        }
        k.retain(used);
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
