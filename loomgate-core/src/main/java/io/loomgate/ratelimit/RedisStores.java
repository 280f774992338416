package io.loomgate.ratelimit;

import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Makes the shared Redis store ({@code store: redis}), which lives in the optional module {@value #MODULE} with its
 * client library (Jedis), so an embedding of loomgate-core carries neither. The module supplies the one
 * implementation, found with {@link ServiceLoader} on Loomgate's class loader; without it a route naming
 * {@code store: redis} is refused by name ({@link RateLimiting}).
 */
interface RedisStores {
    /** The Maven module (artifact id) that implements this. */
    String MODULE = "loomgate-redis";

    /** A store on a pool of connections to this Redis; dials nothing until the first call. */
    RateLimitStore open(RedisSettings settings);

    /** The implementation, or empty when {@value #MODULE} is not on the class path. */
    static Optional<RedisStores> find() {
        return ServiceLoader.load(RedisStores.class, RedisStores.class.getClassLoader()).findFirst();
    }
}
