package io.loomgate.config;

import io.loomgate.http2.OriginFloodLimits;
import io.loomgate.upstream.Http2KeepAlive;
import io.loomgate.upstream.PoolSettings;
import java.util.List;

/**
 * Reads pool limits: the {@code upstream:} section (every endpoint's, defaults from {@link PoolSettings#DEFAULTS})
 * and a named upstream's {@code pool:} (defaults from the {@code upstream:} section). One reader, so the two spell
 * and check each key the same way.
 */
final class PoolReader {
    /** The keys of a pool; {@code upstream:} has {@code ssl} besides. */
    static final List<String> KEYS = List.of("max-connections", "max-idle", "idle-timeout", "connect-timeout", "http2",
            "http2-max-connections", "http2-keepalive-interval", "http2-keepalive-timeout",
            "http2-max-control-frames-burst", "http2-max-control-frames-per-second",
            "http2-max-window-updates-per-data-frame");

    private PoolReader() {
    }

    /** The pool these keys describe, each absent key as in {@code d}. */
    static PoolSettings read(Section s, PoolSettings d) throws ConfigException {
        return new PoolSettings(
                s.integer("max-connections", d.maxConnections(), 1, Integer.MAX_VALUE),
                s.integer("max-idle", d.maxIdle(), 0, Integer.MAX_VALUE),
                s.duration("idle-timeout", d.idleTimeout(), false),
                s.duration("connect-timeout", d.connectTimeout(), false),
                d.limits(), d.tls(),
                s.bool("http2", d.http2()),
                s.integer("http2-max-connections", d.http2MaxConnections(), 1, 1024),
                new Http2KeepAlive(
                        s.duration("http2-keepalive-interval", d.http2KeepAlive().interval(), true),
                        s.duration("http2-keepalive-timeout", d.http2KeepAlive().timeout(), false)),
                new OriginFloodLimits(
                        s.integer("http2-max-control-frames-burst", d.http2Floods().burst(), 1, Integer.MAX_VALUE),
                        s.integer("http2-max-control-frames-per-second", d.http2Floods().perSecond(), 1,
                                Integer.MAX_VALUE),
                        s.integer("http2-max-window-updates-per-data-frame",
                                d.http2Floods().windowUpdatesPerDataFrame(), 1, 1_000_000)),
                null);
    }
}
