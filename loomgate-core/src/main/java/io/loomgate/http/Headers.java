package io.loomgate.http;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * An ordered, case-insensitive multimap of header fields, as they appeared on the wire.
 *
 * <p>Order and duplicates are kept (several {@code Set-Cookie} fields stay several fields, in order), because a proxy
 * must not merge or reorder what it forwards (RFC 9110 §5.3). Names keep the case they arrived in; lookups ignore case.
 * Mutable: the proxy and filters edit one instance per message. Not thread-safe: one exchange owns it.
 *
 * <p>Lookups by name are what a request costs here (the proxy asks a few dozen times per exchange, nearly always for a
 * name that is not there), so each field keeps its name's length beside it ({@link #lengths}): a lookup reads that
 * array and looks at a name's characters only where the lengths agree. Names of different lengths are never equal
 * ignoring case ({@link String#equalsIgnoreCase} compares lengths first), so the answers are those of a compare of
 * every name.
 *
 * <p>Names and values share one array (a field's name, then its value): one array header fewer per message than an
 * array each, and every exchange makes two or three of these.
 */
public final class Headers {
    private static final String[] NONE = {};
    private static final byte[] NO_LENGTHS = {};

    /** Field i's name at {@code 2i}, its value at {@code 2i + 1}. */
    private String[] fields;
    /** Per field, {@link #lengthCode} of its name. */
    private byte[] lengths;
    private int size;

    public Headers() {
        this(16);
    }

    /**
     * Room for {@code capacity} fields before the arrays grow; 0 makes no arrays until the first field (the empty
     * trailers every body without any reports).
     */
    public Headers(int capacity) {
        if (capacity <= 0) {
            fields = NONE;
            lengths = NO_LENGTHS;
        } else {
            lengths = new byte[Math.max(capacity, 4)];
            fields = new String[2 * lengths.length];
        }
    }

    /** A copy that can be edited without touching this one. */
    public Headers copy() {
        Headers c = new Headers(Math.max(size, 4));
        System.arraycopy(fields, 0, c.fields, 0, 2 * size);
        System.arraycopy(lengths, 0, c.lengths, 0, size);
        c.size = size;
        return c;
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    public String name(int i) {
        checkIndex(i);
        return nameAt(i);
    }

    public String value(int i) {
        checkIndex(i);
        return valueAt(i);
    }

    /** Appends a field, after any others of the same name. */
    public Headers add(String name, String value) {
        if (size == lengths.length) {
            int grown = Math.max(4, size * 2);
            fields = Arrays.copyOf(fields, 2 * grown);
            lengths = Arrays.copyOf(lengths, grown);
        }
        fields[2 * size] = name;
        fields[2 * size + 1] = value;
        lengths[size] = lengthCode(name);
        size++;
        return this;
    }

    /** Replaces every field of this name with one field, kept at the position of the first. */
    public Headers set(String name, String value) {
        int first = indexOf(name, 0);
        if (first < 0) {
            return add(name, value);
        }
        fields[2 * first + 1] = value;
        removeFrom(name, first + 1);
        return this;
    }

    /** Removes every field of this name; says whether there was one. */
    public boolean remove(String name) {
        return removeFrom(name, 0) > 0;
    }

    /** The first value of this name, or null. */
    public String first(String name) {
        int i = indexOf(name, 0);
        return i < 0 ? null : valueAt(i);
    }

    /** Every value of this name, in order. */
    public List<String> all(String name) {
        List<String> out = new ArrayList<>(2);
        byte length = lengthCode(name);
        for (int i = 0; i < size; i++) {
            if (lengths[i] == length && nameAt(i).equalsIgnoreCase(name)) {
                out.add(valueAt(i));
            }
        }
        return out;
    }

    public boolean contains(String name) {
        return indexOf(name, 0) >= 0;
    }

    /** How many fields carry this name. */
    public int count(String name) {
        int n = 0;
        byte length = lengthCode(name);
        for (int i = 0; i < size; i++) {
            if (lengths[i] == length && nameAt(i).equalsIgnoreCase(name)) {
                n++;
            }
        }
        return n;
    }

    /**
     * Whether any field of this name holds the token in its comma-separated list, ignoring case and optional
     * whitespace ({@code Connection: keep-alive, Upgrade} holds {@code upgrade}).
     */
    public boolean hasToken(String name, String token) {
        byte length = lengthCode(name);
        for (int i = 0; i < size; i++) {
            if (lengths[i] == length && nameAt(i).equalsIgnoreCase(name) && listHasToken(valueAt(i), token)) {
                return true;
            }
        }
        return false;
    }

    public void forEach(BiConsumer<String, String> action) {
        for (int i = 0; i < size; i++) {
            action.accept(nameAt(i), valueAt(i));
        }
    }

    /** The index of the first field of this name at or after {@code from}, or -1. */
    public int indexOf(String name, int from) {
        byte length = lengthCode(name);
        for (int i = from; i < size; i++) {
            if (lengths[i] == length && nameAt(i).equalsIgnoreCase(name)) {
                return i;
            }
        }
        return -1;
    }

    /** Removes the field at this index, keeping the order of the rest. */
    public void removeAt(int i) {
        checkIndex(i);
        System.arraycopy(fields, 2 * (i + 1), fields, 2 * i, 2 * (size - i - 1));
        System.arraycopy(lengths, i + 1, lengths, i, size - i - 1);
        size--;
        fields[2 * size] = null;
        fields[2 * size + 1] = null;
    }

    private int removeFrom(String name, int from) {
        int w = indexOf(name, from); // nearly always -1: nothing moves, nothing is written
        if (w < 0) {
            return 0;
        }
        int removed = 0;
        byte length = lengthCode(name);
        for (int r = w; r < size; r++) {
            if (lengths[r] == length && nameAt(r).equalsIgnoreCase(name)) {
                removed++;
            } else {
                fields[2 * w] = fields[2 * r];
                fields[2 * w + 1] = fields[2 * r + 1];
                lengths[w] = lengths[r];
                w++;
            }
        }
        Arrays.fill(fields, 2 * w, 2 * size, null);
        size = w;
        return removed;
    }

    private String nameAt(int i) {
        return fields[2 * i];
    }

    private String valueAt(int i) {
        return fields[2 * i + 1];
    }

    /**
     * A name's length as a byte, the same for names equal ignoring case (their lengths are equal); the lengths of
     * 255 and more share one code, which only costs those names a look at their characters.
     */
    static byte lengthCode(String name) {
        return (byte) Math.min(name.length(), 255);
    }

    static boolean listHasToken(String list, String token) {
        int n = list.length();
        int i = 0;
        while (i < n) {
            while (i < n && (list.charAt(i) == ' ' || list.charAt(i) == '\t' || list.charAt(i) == ',')) {
                i++;
            }
            int start = i;
            while (i < n && list.charAt(i) != ',') {
                i++;
            }
            int end = i;
            while (end > start && (list.charAt(end - 1) == ' ' || list.charAt(end - 1) == '\t')) {
                end--;
            }
            if (end - start == token.length() && list.regionMatches(true, start, token, 0, token.length())) {
                return true;
            }
        }
        return false;
    }

    private void checkIndex(int i) {
        if (i < 0 || i >= size) {
            throw new IndexOutOfBoundsException("header index " + i + " of " + size);
        }
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < size; i++) {
            sb.append(nameAt(i)).append(": ").append(valueAt(i)).append('\n');
        }
        return sb.toString();
    }
}
