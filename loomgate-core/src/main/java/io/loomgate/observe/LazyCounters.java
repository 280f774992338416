package io.loomgate.observe;

import io.micrometer.core.instrument.Counter;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntFunction;

/**
 * A fixed set of counters, each registered on first use. After the first increment of a slot, an increment is an
 * array read, with no registry lookup.
 *
 * <p><b>Race window:</b> two threads may both find a slot empty and both register; the registry returns the same
 * counter for the same id, so the slot ends up holding that one counter either way.
 */
final class LazyCounters {
    private final AtomicReferenceArray<Counter> slots;
    private final IntFunction<Counter> register;

    LazyCounters(int size, IntFunction<Counter> register) {
        this.slots = new AtomicReferenceArray<>(size);
        this.register = register;
    }

    Counter get(int index) {
        Counter c = slots.get(index);
        if (c == null) {
            c = register.apply(index);
            slots.set(index, c);
        }
        return c;
    }

    /** The count of a slot, 0 if never used. */
    double count(int index) {
        Counter c = slots.get(index);
        return c == null ? 0 : c.count();
    }

    int size() {
        return slots.length();
    }
}
