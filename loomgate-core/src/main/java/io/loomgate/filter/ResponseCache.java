package io.loomgate.filter;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The store of one {@code LocalResponseCache} (one route's, or the one the default filters share): bounded by bytes,
 * least recently used out first, each entry valid for the time-to-live after it was stored (Spring Cloud Gateway's
 * Caffeine cache is configured the same way: {@code expireAfterWrite} and a weigher of the body's bytes).
 *
 * <p>Two kinds of entry, as SCG keeps them: under a request's base key the response's {@code Vary} field names, and
 * under the base key plus those fields' values the response itself. The lock guards only map operations (no I/O);
 * entries are immutable.
 */
final class ResponseCache {
    /** An expired entry stays until it is looked up or pushed out by size: both bound it. */
    private final long maxBytes;
    private final long timeToLiveMillis;
    private final ReentrantLock lock = new ReentrantLock();
    private final LinkedHashMap<String, Object> entries = new LinkedHashMap<>(16, 0.75f, true); // guarded by lock
    private final Map<String, Long> stored = new java.util.HashMap<>(); // key -> storedMillis, guarded by lock
    private long bytes; // guarded by lock

    ResponseCache(long maxBytes, long timeToLiveMillis) {
        this.maxBytes = maxBytes;
        this.timeToLiveMillis = timeToLiveMillis;
    }

    long maxBytes() {
        return maxBytes;
    }

    long timeToLiveMillis() {
        return timeToLiveMillis;
    }

    /** The response under {@code key} if it is still valid at {@code nowMillis}; null otherwise. */
    CachedResponse response(String key, long nowMillis) {
        return get(key, nowMillis) instanceof CachedResponse r ? r : null;
    }

    /** The Vary field names stored under a base key, or null when none are. */
    @SuppressWarnings("unchecked")
    List<String> varyNames(String baseKey, long nowMillis) {
        return get(baseKey, nowMillis) instanceof List<?> names ? (List<String>) names : null;
    }

    /**
     * Stores a response and the Vary names of its base key; returns how many older entries had to go for room.
     * A response larger than the whole cache is not stored.
     */
    int put(String baseKey, List<String> varyNames, String key, CachedResponse response) {
        long weight = response.weight() + key.length();
        if (weight > maxBytes) {
            return 0;
        }
        lock.lock();
        try {
            putLocked(baseKey, List.copyOf(varyNames), weightOf(baseKey, varyNames), response.storedMillis());
            putLocked(key, response, weight, response.storedMillis());
            int evicted = 0;
            Iterator<Map.Entry<String, Object>> eldest = entries.entrySet().iterator();
            while (bytes > maxBytes && eldest.hasNext()) {
                Map.Entry<String, Object> e = eldest.next();
                if (e.getKey().equals(key) || e.getKey().equals(baseKey)) {
                    continue;
                }
                eldest.remove();
                stored.remove(e.getKey());
                bytes -= weightOf(e.getKey(), e.getValue());
                evicted++;
            }
            return evicted;
        } finally {
            lock.unlock();
        }
    }

    /** Bytes held now. */
    long bytes() {
        lock.lock();
        try {
            return bytes;
        } finally {
            lock.unlock();
        }
    }

    private Object get(String key, long nowMillis) {
        lock.lock();
        try {
            Object v = entries.get(key);
            if (v != null && nowMillis - stored.get(key) >= timeToLiveMillis) {
                entries.remove(key);
                stored.remove(key);
                bytes -= weightOf(key, v);
                return null;
            }
            return v;
        } finally {
            lock.unlock();
        }
    }

    private void putLocked(String key, Object value, long weight, long storedMillis) {
        Object before = entries.put(key, value);
        if (before != null) {
            bytes -= weightOf(key, before);
        }
        stored.put(key, storedMillis);
        bytes += weight;
    }

    private static long weightOf(String key, Object value) {
        if (value instanceof CachedResponse r) {
            return r.weight() + key.length();
        }
        long w = key.length();
        for (Object name : (List<?>) value) {
            w += name.toString().length() + 1;
        }
        return w;
    }
}
