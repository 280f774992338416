package io.loomgate.observe;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The last {@code capacity} items added, oldest overwritten first. Adding is lock-free (one increment and one array
 * store), so request threads may add without blocking.
 *
 * <p><b>Race window:</b> a reader running while writers wrap around may see a slot already overwritten by a newer
 * item, so a snapshot can show one item newer than the rest and miss the one it replaced. For "recent events"
 * displays that is harmless; nothing here is used for counting.
 */
final class BoundedRing<T> {
    private final AtomicReferenceArray<T> slots;
    private final AtomicLong added = new AtomicLong();

    BoundedRing(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("ring capacity must be at least 1, got " + capacity);
        }
        slots = new AtomicReferenceArray<>(capacity);
    }

    void add(T item) {
        long n = added.getAndIncrement();
        slots.set((int) (n % slots.length()), item);
    }

    /** How many items were ever added. */
    long added() {
        return added.get();
    }

    /** The items held, newest first. */
    List<T> newestFirst() {
        long n = added.get();
        int capacity = slots.length();
        int count = (int) Math.min(n, capacity);
        List<T> out = new ArrayList<>(count);
        for (long i = n - 1; i >= n - count; i--) {
            T item = slots.get((int) (i % capacity));
            if (item != null) {
                out.add(item);
            }
        }
        return out;
    }
}
