package io.loomgate.ratelimit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import javax.net.ssl.SSLParameters;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * Token buckets in Redis, shared by every gateway (and Spring Cloud Gateway replica) that uses the same Redis: one
 * atomic Lua script per request ({@code request_rate_limiter.lua}, SCG's semantics), sent as EVALSHA and loaded once
 * on NOSCRIPT (after a Redis restart, or the first time), on keys {@code request_rate_limiter.{key}.tokens} and
 * {@code .timestamp}, as SCG names them.
 *
 * <p>Every call is bounded by {@link RedisSettings#timeout()}: the wait for a pooled connection, a new connection's
 * connect, and each socket read. A failure of any kind is a {@link StoreUnavailableException}; Jedis marks a
 * connection that failed as broken and the pool closes it, so the next call dials again: that is the reconnect.
 *
 * <p>Virtual threads: Jedis's blocking path (its streams and {@code Connection}) has no {@code synchronized}; the pool
 * (commons-pool2) holds a monitor only around counters, except one wait when the pool is full while another
 * connection is being dialled, which the borrow timeout bounds (docs/architecture.md).
 */
final class RedisStore implements RateLimitStore {
    static final String SCRIPT = readScript();
    static final byte[] SCRIPT_SHA = sha1(SCRIPT);

    private final JedisPool pool;
    private final RedisSettings settings;

    RedisStore(RedisSettings settings) {
        this.settings = settings;
        int millis = (int) settings.timeout().toMillis();
        DefaultJedisClientConfig.Builder client = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(millis).socketTimeoutMillis(millis)
                .user(settings.user()).password(settings.password()).database(settings.database())
                .clientName("loomgate").ssl(settings.tls());
        if (settings.tls()) {
            // Jedis checks the host name only when asked; a TLS connection that does not is no protection.
            SSLParameters checkHost = new SSLParameters();
            checkHost.setEndpointIdentificationAlgorithm("HTTPS");
            client.sslParameters(checkHost);
            if (settings.caFile() != null) {
                client.sslSocketFactory(CaTrust.socketFactory(settings.caFile()));
            }
        }
        this.pool = new JedisPool(poolConfig(settings), new HostAndPort(settings.host(), settings.port()),
                client.build());
    }

    /**
     * Blocking borrow with the call's timeout; no idle testing (a dead connection fails its call, is dropped, and
     * the next call dials), no evictor thread, no JMX.
     */
    private static GenericObjectPoolConfig<Jedis> poolConfig(RedisSettings settings) {
        GenericObjectPoolConfig<Jedis> c = new GenericObjectPoolConfig<>();
        c.setMaxTotal(settings.maxConnections());
        c.setMaxIdle(settings.maxConnections());
        c.setMinIdle(0);
        c.setBlockWhenExhausted(true);
        c.setMaxWait(settings.timeout());
        c.setTestOnBorrow(false);
        c.setTestOnReturn(false);
        c.setTestWhileIdle(false);
        c.setTimeBetweenEvictionRuns(Duration.ofMillis(-1));
        c.setJmxEnabled(false);
        return c;
    }

    /**
     * Dials one connection and loads the script before the first request, so that neither happens on it: a cold
     * JVM's first dial (Jedis's classes, the connection's handshake) missed the default 50 ms timeout at load 15-20,
     * and that first request was decided as if Redis were down, a 503 with {@code failure-mode: deny} (session 55).
     * At most three tries, each bounded by the timeout; a Redis that is not there at start is found by the first
     * request, as before. The connection stays pooled (no evictor).
     */
    void warmUp() {
        for (int i = 0; i < 3; i++) {
            try (Jedis jedis = pool.getResource()) {
                jedis.scriptLoad(SCRIPT);
                return;
            } catch (JedisException e) {
                // not reachable yet: try again, or leave it to the first request
            }
        }
    }

    @Override
    public String name() {
        return "redis";
    }

    /** SCG's two keys for one resolved key; the braces make both hash to one Redis Cluster slot. */
    static List<byte[]> keys(String key) {
        String prefix = "request_rate_limiter.{" + key + "}.";
        return List.of((prefix + "tokens").getBytes(StandardCharsets.UTF_8),
                (prefix + "timestamp").getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public Decision consume(String key, RateLimit limit) {
        List<byte[]> keys = keys(key);
        List<byte[]> args = List.of(bytes(limit.replenishRate()), bytes(limit.burstCapacity()), new byte[0],
                bytes(limit.requestedTokens()));
        try (Jedis jedis = pool.getResource()) {
            Object reply;
            try {
                reply = jedis.evalsha(SCRIPT_SHA, keys, args);
            } catch (JedisNoScriptException e) {
                // Redis restarted or was flushed: load the script (EVAL caches it under the same SHA) and go on.
                reply = jedis.eval(SCRIPT.getBytes(StandardCharsets.UTF_8), keys, args);
            }
            return decision(reply);
        } catch (JedisException | IllegalStateException e) {
            throw new StoreUnavailableException("redis " + settings.redacted() + ": " + e.getMessage(), e);
        }
    }

    private static Decision decision(Object reply) {
        if (reply instanceof List<?> list && list.size() == 2 && list.get(0) instanceof Long allowed
                && list.get(1) instanceof Long tokens) {
            return new Decision(allowed == 1L, tokens);
        }
        throw new IllegalStateException("unexpected reply from the rate-limit script: " + reply);
    }

    private static byte[] bytes(int n) {
        return Integer.toString(n).getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public void close() {
        pool.close();
    }

    private static String readScript() {
        try (InputStream in = RedisStore.class.getResourceAsStream("request_rate_limiter.lua")) {
            if (in == null) {
                throw new IllegalStateException("request_rate_limiter.lua missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read request_rate_limiter.lua", e);
        }
    }

    /** The SHA-1 Redis files a script under, as lower-case hex (what EVALSHA expects). */
    private static byte[] sha1(String script) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(script.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest).getBytes(StandardCharsets.US_ASCII);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
