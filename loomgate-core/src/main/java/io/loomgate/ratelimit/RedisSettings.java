package io.loomgate.ratelimit;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Where the shared Redis is and how long a request may wait for it: the top-level {@code redis:} section.
 *
 * @param host           host name or address
 * @param port           default 6379
 * @param tls            {@code rediss://}
 * @param user           ACL user, or null ({@code redis://user:password@host})
 * @param password       or null ({@code redis://:password@host})
 * @param database       {@code /N} at the end of the URL, default 0
 * @param timeout        bound on each part of one call (pool borrow, connect, socket read); past it the call has
 *                       failed, and {@code failureMode} decides (default 50ms)
 * @param maxConnections connections to Redis at most, shared by every route (default 64)
 * @param caFile         PEM file of the CA that signed Redis's certificate for {@code rediss://}, or null for the
 *                       JDK's trust store
 * @param failureMode    what a request gets when Redis fails or is too slow (default {@link FailureMode#OPEN})
 */
public record RedisSettings(String host, int port, boolean tls, String user, String password, int database,
                            Duration timeout, int maxConnections, Path caFile, FailureMode failureMode) {
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(50);
    public static final int DEFAULT_MAX_CONNECTIONS = 64;

    /**
     * Reads {@code redis://[[user]:password@]host[:port][/database]} or {@code rediss://...}.
     *
     * @throws IllegalArgumentException naming what is wrong with the URL
     */
    public static RedisSettings parse(String url, Duration timeout, int maxConnections, Path caFile) {
        URI uri;
        try {
            uri = new URI(url.trim());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("'" + url + "' is not a URL: " + e.getReason());
        }
        String scheme = uri.getScheme();
        if (scheme == null || !(scheme.equals("redis") || scheme.equals("rediss"))) {
            throw new IllegalArgumentException("expected redis://host:port or rediss://host:port, got '" + url + "'");
        }
        if (uri.getHost() == null || uri.getHost().isEmpty()) {
            throw new IllegalArgumentException("no host in '" + url + "'");
        }
        String user = null;
        String password = null;
        if (uri.getRawUserInfo() != null) {
            String info = uri.getRawUserInfo();
            int colon = info.indexOf(':');
            String u = colon < 0 ? "" : decode(info.substring(0, colon));
            password = decode(colon < 0 ? info : info.substring(colon + 1));
            user = u.isEmpty() ? null : u;
        }
        int database = 0;
        String path = uri.getPath();
        if (path != null && !path.isEmpty() && !path.equals("/")) {
            try {
                database = Integer.parseInt(path.substring(1));
            } catch (NumberFormatException e) {
                database = -1;
            }
            if (database < 0) {
                throw new IllegalArgumentException("the path of '" + url + "' must be a database number, like /0");
            }
        }
        if (uri.getQuery() != null || uri.getFragment() != null) {
            throw new IllegalArgumentException("no query or fragment expected in '" + url + "'");
        }
        // Jedis counts in whole milliseconds, and 0 would mean "wait forever".
        if (timeout.toMillis() < 1 || timeout.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("timeout must be at least 1ms, got " + timeout.toMillis() + "ms");
        }
        if (maxConnections < 1) {
            throw new IllegalArgumentException("max-connections must be at least 1, got " + maxConnections);
        }
        return new RedisSettings(uri.getHost(), uri.getPort() < 0 ? 6379 : uri.getPort(), scheme.equals("rediss"),
                user, password, database, timeout, maxConnections, caFile, FailureMode.OPEN);
    }

    /** The same Redis, with another answer for when it fails. */
    public RedisSettings withFailureMode(FailureMode mode) {
        return new RedisSettings(host, port, tls, user, password, database, timeout, maxConnections, caFile, mode);
    }

    /**
     * {@code redis.failure-mode}: what a request gets when its Redis call fails or times out (Envoy's
     * {@code failure_mode_deny}).
     */
    public enum FailureMode {
        /**
         * The request is decided by a local bucket of this gateway for the same key and limit: the limit still
         * holds per gateway instance, instead of not at all (Spring Cloud Gateway allows every request).
         */
        OPEN,
        /** The request is refused with 503 and {@code Retry-After: 1}: no request passes that was not counted. */
        DENY;

        /**
         * @throws IllegalArgumentException naming the accepted values
         */
        public static FailureMode parse(String text) {
            return switch (text.trim()) {
                case "open" -> OPEN;
                case "deny" -> DENY;
                default -> throw new IllegalArgumentException("expected open or deny, got '" + text + "'");
            };
        }
    }

    /**
     * Reads {@link #caFile()} now, so a missing or unreadable file is a configuration error, not a failure of the
     * first request.
     *
     * @throws IllegalArgumentException saying what is wrong with the file
     */
    public RedisSettings checkCaFile() {
        if (caFile != null) {
            CaTrust.socketFactory(caFile);
        }
        return this;
    }

    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    /** For logs: the URL without the password. */
    public String redacted() {
        return (tls ? "rediss://" : "redis://") + (password == null ? "" : (user == null ? "" : user) + ":***@")
                + host + ":" + port + (database == 0 ? "" : "/" + database);
    }

    @Override
    public String toString() {
        return "RedisSettings[" + redacted() + ", timeout=" + timeout + ", maxConnections=" + maxConnections
                + ", failureMode=" + failureMode + "]";
    }
}
