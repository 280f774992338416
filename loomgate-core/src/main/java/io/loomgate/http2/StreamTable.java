package io.loomgate.http2;

import java.util.ArrayList;
import java.util.List;

/**
 * A connection's open streams by id: a table keyed by the int stream id itself (open addressing, linear probing), so
 * a lookup boxes no {@code Integer} and compares no {@code Integer} objects, as a {@code HashMap<Integer, ...>} does on
 * every frame of a stream whose id is over 127 (issue 39: {@code Integer.equals} in the stream maps showed in W8's
 * profile, and the boxes in its allocation). Used by both roles: the server's connection (streams its client opens)
 * and the upstream client's (streams it opens to an origin).
 *
 * <p>Memory: the arrays are kept when the table empties, so a connection whose streams come and go (one at a time,
 * or in bursts that empty it now and then) makes none per stream: letting them go at each emptying cost two arrays
 * each time it filled again (~160 B a request for one stream at a time), and letting only grown arrays go made an
 * origin connection at ~100 streams grow them again and again (35 B a request at w8h2, session 53). What is kept is
 * bounded by SETTINGS_MAX_CONCURRENT_STREAMS: the table is at most 3/4 full, so its capacity is the smallest power of
 * two above 4/3 of the most streams open at once, {@value #FIRST_CAPACITY} at least (~150 B; 256 slots, ~2 KB, for
 * 100 streams). A connection that parks while idle lets them go ({@link #release}); the upstream client's map, a
 * {@code HashMap} before, never shrank either.
 *
 * <p>Stream ids are positive (0 is the connection, never a stream), so 0 marks a free slot; a removal shifts the
 * entries after it back (no tombstones). Not thread-safe: the connection guards it with its lock.
 *
 * @param <S> the stream
 */
final class StreamTable<S> {
    private static final int FIRST_CAPACITY = 16;

    private int[] ids;
    private Object[] streams;
    private int size;

    /** The stream with this id, or null. */
    @SuppressWarnings("unchecked")
    S get(int id) {
        if (size == 0) {
            return null;
        }
        int mask = ids.length - 1;
        for (int i = slot(id, mask); ; i = (i + 1) & mask) {
            int at = ids[i];
            if (at == id) {
                return (S) streams[i];
            }
            if (at == 0) {
                return null;
            }
        }
    }

    /** Adds or replaces the stream with this id (positive). */
    void put(int id, S stream) {
        if (id <= 0) {
            throw new IllegalArgumentException("stream id " + id);
        }
        if (ids == null) {
            ids = new int[FIRST_CAPACITY];
            streams = new Object[FIRST_CAPACITY];
        } else if ((size + 1) * 4 > ids.length * 3) {
            // at most 3/4 full: the first 16 slots hold a client's usual 10 streams in flight without growing
            grow();
        }
        int mask = ids.length - 1;
        int i = slot(id, mask);
        while (ids[i] != 0 && ids[i] != id) {
            i = (i + 1) & mask;
        }
        if (ids[i] == 0) {
            ids[i] = id;
            size++;
        }
        streams[i] = stream;
    }

    /** Removes the stream with this id; returns it, or null if there was none. Empty, the table keeps its arrays. */
    @SuppressWarnings("unchecked")
    S remove(int id) {
        if (size == 0) {
            return null;
        }
        int mask = ids.length - 1;
        int i = slot(id, mask);
        while (ids[i] != id) {
            if (ids[i] == 0) {
                return null;
            }
            i = (i + 1) & mask;
        }
        S removed = (S) streams[i];
        if (--size == 0) {
            ids[i] = 0;
            streams[i] = null;
            return removed;
        }
        // Backward shift: each entry after the hole that may live there (its home slot is not between the hole and
        // it) moves into the hole, until a free slot ends the run.
        for (int j = (i + 1) & mask; ids[j] != 0; j = (j + 1) & mask) {
            int home = slot(ids[j], mask);
            if (((j - home) & mask) >= ((j - i) & mask)) {
                ids[i] = ids[j];
                streams[i] = streams[j];
                i = j;
            }
        }
        ids[i] = 0;
        streams[i] = null;
        return removed;
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** The streams, in no particular order, as a new list. */
    @SuppressWarnings("unchecked")
    List<S> values() {
        List<S> all = new ArrayList<>(size);
        for (int i = 0; size > 0 && i < ids.length; i++) {
            if (ids[i] != 0) {
                all.add((S) streams[i]);
            }
        }
        return all;
    }

    /** Forgets every stream (and the arrays). */
    void clear() {
        ids = null;
        streams = null;
        size = 0;
    }

    /** Lets the arrays go if no stream is open (the connection parks: it holds as little as it can while idle). */
    void release() {
        if (size == 0) {
            clear();
        }
    }

    /** How many slots the table has now (0 without arrays): for tests of its bounds. */
    int capacity() {
        return ids == null ? 0 : ids.length;
    }

    private void grow() {
        int[] oldIds = ids;
        Object[] oldStreams = streams;
        ids = new int[oldIds.length * 2];
        streams = new Object[oldIds.length * 2];
        int mask = ids.length - 1;
        for (int k = 0; k < oldIds.length; k++) {
            if (oldIds[k] != 0) {
                int i = slot(oldIds[k], mask);
                while (ids[i] != 0) {
                    i = (i + 1) & mask;
                }
                ids[i] = oldIds[k];
                streams[i] = oldStreams[k];
            }
        }
    }

    /** Fibonacci hashing: a client's ids are all odd, which a plain mask would crowd into half the slots. */
    private static int slot(int id, int mask) {
        return (id * 0x9E3779B9 >>> 16) & mask;
    }
}
