package io.loomgate.http2;

/**
 * HPACK's dynamic table (RFC 7541 §2.3.2, §4): a FIFO of fields, newest at index 1, whose size (octets of name and
 * value plus 32 per entry) never exceeds its maximum; adding evicts the oldest entries first. Owned by one decoder
 * or encoder, so by one thread.
 */
final class DynamicTable {
    static final int ENTRY_OVERHEAD = 32;

    private String[] names = new String[8];
    private String[] values = new String[8];
    /** Ring buffer: the newest entry is at {@code head - 1}. */
    private int head;
    private int count;
    private int size;
    private int maxSize;

    DynamicTable(int maxSize) {
        this.maxSize = maxSize;
    }

    int size() {
        return size;
    }

    int count() {
        return count;
    }

    int maxSize() {
        return maxSize;
    }

    /** Changes the maximum size, evicting what no longer fits (RFC 7541 §4.3). */
    void setMaxSize(int newMax) {
        maxSize = newMax;
        evictTo(newMax);
    }

    /** Entry {@code i}, 1 for the newest. */
    String name(int i) {
        return names[slot(i)];
    }

    String value(int i) {
        return values[slot(i)];
    }

    private int slot(int i) {
        return Math.floorMod(head - i, names.length);
    }

    /** Adds a field; one larger than the maximum empties the table and is not added (RFC 7541 §4.4). */
    void add(String name, String value) {
        int entrySize = name.length() + value.length() + ENTRY_OVERHEAD;
        if (entrySize > maxSize) {
            evictTo(0);
            return;
        }
        evictTo(maxSize - entrySize);
        if (count == names.length) {
            grow();
        }
        names[head] = name;
        values[head] = value;
        head = (head + 1) % names.length;
        count++;
        size += entrySize;
    }

    private void evictTo(int target) {
        while (size > target && count > 0) {
            int oldest = slot(count);
            size -= names[oldest].length() + values[oldest].length() + ENTRY_OVERHEAD;
            names[oldest] = null;
            values[oldest] = null;
            count--;
        }
    }

    private void grow() {
        String[] n = new String[names.length * 2];
        String[] v = new String[names.length * 2];
        for (int i = count; i >= 1; i--) {
            int k = count - i;
            n[k] = name(i);
            v[k] = value(i);
        }
        names = n;
        values = v;
        head = count;
    }
}
