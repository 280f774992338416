package io.loomgate.ratelimit;

/**
 * This module's answer to loomgate-core's {@link RedisStores} (listed in
 * {@code META-INF/services/io.loomgate.ratelimit.RedisStores}): the {@link RedisStore} on Jedis. Public only because
 * {@link java.util.ServiceLoader} instantiates it.
 */
public final class JedisStores implements RedisStores {
    @Override
    public RateLimitStore open(RedisSettings settings) {
        RedisStore store = new RedisStore(settings);
        store.warmUp();
        return store;
    }
}
