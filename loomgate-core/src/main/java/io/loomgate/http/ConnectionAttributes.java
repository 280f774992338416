package io.loomgate.http;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the exchange listeners keep about one connection (a client's, or one to an origin) beside their exchanges: the
 * tracer's span of the connection's first traced exchange, which later exchanges on it link to. Held by the connection
 * and gone with it (no registry keyed by connection that must be cleaned). The HTTP/2 streams of one connection run
 * on threads of their own, so this is thread-safe; its map is made on the first put (most connections never get one).
 */
public final class ConnectionAttributes {
    private static final VarHandle MAP;

    static {
        try {
            MAP = MethodHandles.lookup().findVarHandle(ConnectionAttributes.class, "map", ConcurrentHashMap.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // through MAP
    private volatile ConcurrentHashMap<String, Object> map;

    /** The value under {@code name}, or null. */
    public Object get(String name) {
        ConcurrentHashMap<String, Object> m = map;
        return m == null ? null : m.get(name);
    }

    /** Puts {@code value} unless {@code name} has one; returns the value it had (null when this one went in). */
    public Object putIfAbsent(String name, Object value) {
        ConcurrentHashMap<String, Object> m = map;
        if (m == null) {
            MAP.compareAndSet(this, null, new ConcurrentHashMap<String, Object>(2));
            m = map;
        }
        return m.putIfAbsent(name, value);
    }
}
