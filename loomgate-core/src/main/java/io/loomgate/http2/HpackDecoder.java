package io.loomgate.http2;

import java.nio.charset.StandardCharsets;

/**
 * Decodes header blocks (RFC 7541 §6) with one connection's dynamic table, bounded by the table size this side
 * advertised. Owned by the connection's reading thread.
 *
 * <p>HPACK bomb: a small block can name a large table entry many times. The decoded size of a block (octets plus 32
 * per field, as SETTINGS_MAX_HEADER_LIST_SIZE counts) is tallied; past the limit, fields stop being handed on but
 * decoding goes on to the end of the block, so the table stays in step with the peer's and only this one request is
 * refused (the block itself is already bounded, so the work is too).
 *
 * <p>Memory: one read position and one array Huffman-coded strings are decoded into serve every block of the
 * connection (a request's {@code :path} comes Huffman-coded each time from most clients: a new position and array per
 * block were ~50 B of every HTTP/2 request). The array grows to at most {@link #KEPT_SCRATCH} bytes (a longer string
 * is decoded into an array of its own), and a connection that parks while idle lets it go ({@link #dropScratch}).
 */
final class HpackDecoder {
    /** Receives decoded fields in order. */
    interface FieldSink {
        void field(String name, String value);
    }

    /** The largest decoding array kept between strings (the decoded octets of a usual path or user-agent fit). */
    static final int KEPT_SCRATCH = 256;
    /** The first array's size at least: a usual request's Huffman-coded path fits. */
    private static final int MIN_SCRATCH = 64;

    private final DynamicTable table;
    private final int maxTableSize;
    /** The block being decoded: one per decoder, which only the connection's reading thread uses. */
    private final Cursor c = new Cursor();

    HpackDecoder(int maxTableSize) {
        this.table = new DynamicTable(maxTableSize);
        this.maxTableSize = maxTableSize;
    }

    /** Lets the Huffman array go: the connection is parking, and holds as little as it can while idle. */
    void dropScratch() {
        c.decoded = null;
    }

    int tableSize() {
        return table.size();
    }

    /**
     * How many fields a block holds, read from the representations' prefixes without decoding a string, so that the
     * sink can make its list the size the block needs (a fixed 16 was two thirds empty for a usual request). Lenient:
     * a malformed or cut-short block counts what came before the fault, and {@link #decode} then refuses it. Stops at
     * {@code most}: a hostile block of one-byte fields must not make a sink presize arrays for thousands (past
     * {@code most} a list grows as it fills, as before).
     */
    static int countFields(byte[] block, int length, int most) {
        return countFields(block, 0, length, most);
    }

    /** As {@link #countFields(byte[], int, int)} for the block at {@code block[off, off+length)}. */
    static int countFields(byte[] block, int off, int length, int most) {
        int n = 0;
        int pos = off;
        int end = off + length;
        while (pos >= 0 && pos < end && n < most) {
            int b = block[pos] & 0xff;
            if ((b & 0x80) != 0) { // indexed field, §6.1
                pos = skipInteger(block, pos, end, 7);
            } else if ((b & 0xe0) == 0x20) { // dynamic table size update, §6.3: no field
                pos = skipInteger(block, pos, end, 5);
                continue;
            } else { // a literal (§6.2.1-§6.2.3): its name is a string when the index is 0, then its value
                int prefix = (b & 0xc0) == 0x40 ? 6 : 4;
                boolean literalName = (b & ((1 << prefix) - 1)) == 0;
                pos = skipInteger(block, pos, end, prefix);
                if (literalName) {
                    pos = skipString(block, pos, end);
                }
                pos = skipString(block, pos, end);
            }
            if (pos >= 0) {
                n++;
            }
        }
        return n;
    }

    /** The position after an N-bit-prefix integer at {@code pos}, or -1 if it runs past {@code end}. */
    private static int skipInteger(byte[] b, int pos, int end, int prefixBits) {
        int max = (1 << prefixBits) - 1;
        if ((b[pos++] & max) < max) {
            return pos;
        }
        while (pos < end) {
            if ((b[pos++] & 0x80) == 0) {
                return pos;
            }
        }
        return -1;
    }

    /** The position after a string literal at {@code pos}, or -1 if it runs past {@code end}. */
    private static int skipString(byte[] b, int pos, int end) {
        if (pos < 0 || pos >= end) {
            return -1;
        }
        long length = b[pos++] & 0x7f;
        if (length == 0x7f) {
            for (int shift = 0; ; shift += 7) {
                if (pos >= end || shift > 28) {
                    return -1;
                }
                int x = b[pos++] & 0xff;
                length += (long) (x & 0x7f) << shift;
                if ((x & 0x80) == 0) {
                    break;
                }
            }
        }
        return length > end - pos ? -1 : pos + (int) length;
    }

    /**
     * Decodes one whole block. Returns whether every field was handed on: false when the decoded list exceeded
     * {@code maxListSize}.
     */
    boolean decode(byte[] block, int length, long maxListSize, FieldSink sink) throws HpackException {
        return decode(block, 0, length, maxListSize, sink);
    }

    /**
     * Decodes the block at {@code block[off, off+length)} in place: the frame reader's own buffer, which holds the
     * frame the block came in (no copy of the block is made).
     */
    boolean decode(byte[] block, int off, int length, long maxListSize, FieldSink sink) throws HpackException {
        c.start(block, off, off + length);
        try {
            return decodeFields(block, maxListSize, sink);
        } finally {
            c.start(null, 0, 0); // the block is not held past its decoding
        }
    }

    private boolean decodeFields(byte[] block, long maxListSize, FieldSink sink) throws HpackException {
        long listSize = 0;
        boolean fieldSeen = false;
        while (c.pos < c.end) {
            int b = block[c.pos] & 0xff;
            String name;
            String value;
            if ((b & 0x80) != 0) { // indexed field, §6.1
                int index = c.integer(7);
                if (index == 0) {
                    throw new HpackException("indexed field with index 0 (RFC 7541 §6.1)");
                }
                name = name(index);
                value = value(index);
            } else if ((b & 0xc0) == 0x40) { // literal with incremental indexing, §6.2.1
                int index = c.integer(6);
                name = index == 0 ? c.string() : name(index);
                value = c.string();
                table.add(name, value);
            } else if ((b & 0xe0) == 0x20) { // dynamic table size update, §6.3
                if (fieldSeen) {
                    throw new HpackException("dynamic table size update after a field (RFC 7541 §4.2)");
                }
                int newSize = c.integer(5);
                if (newSize > maxTableSize) {
                    throw new HpackException("dynamic table size update to " + newSize + " over the advertised "
                            + maxTableSize);
                }
                table.setMaxSize(newSize);
                continue;
            } else { // literal without indexing (0000) or never indexed (0001), §6.2.2/§6.2.3
                int index = c.integer(4);
                name = index == 0 ? c.string() : name(index);
                value = c.string();
            }
            fieldSeen = true;
            listSize += name.length() + value.length() + DynamicTable.ENTRY_OVERHEAD;
            if (listSize <= maxListSize) {
                sink.field(name, value);
            }
        }
        return listSize <= maxListSize;
    }

    private String name(int index) throws HpackException {
        if (index <= StaticTable.SIZE) {
            return StaticTable.name(index);
        }
        int d = index - StaticTable.SIZE;
        if (d > table.count()) {
            throw new HpackException("index " + index + " beyond the tables (RFC 7541 §2.3.3)");
        }
        return table.name(d);
    }

    private String value(int index) throws HpackException {
        if (index <= StaticTable.SIZE) {
            return StaticTable.value(index);
        }
        int d = index - StaticTable.SIZE;
        if (d > table.count()) {
            throw new HpackException("index " + index + " beyond the tables (RFC 7541 §2.3.3)");
        }
        return table.value(d);
    }

    /** A read position in the block being decoded. */
    private static final class Cursor {
        private byte[] buf;
        private int end;
        private int pos;
        /** Where Huffman-coded strings of up to KEPT_SCRATCH octets are decoded: made at the first, grown, kept. */
        private byte[] decoded;

        void start(byte[] block, int from, int to) {
            buf = block;
            pos = from;
            end = to;
        }

        /** An integer with an N-bit prefix (RFC 7541 §5.1), refused past 2^31-1. */
        int integer(int prefixBits) throws HpackException {
            int max = (1 << prefixBits) - 1;
            int v = buf[pos++] & max;
            if (v < max) {
                return v;
            }
            long value = max;
            int shift = 0;
            while (true) {
                if (pos >= end) {
                    throw new HpackException("integer runs past the end of the block");
                }
                int b = buf[pos++] & 0xff;
                value += (long) (b & 0x7f) << shift;
                if (value > Integer.MAX_VALUE) {
                    throw new HpackException("integer overflow (RFC 7541 §5.1)");
                }
                if ((b & 0x80) == 0) {
                    return (int) value;
                }
                shift += 7;
            }
        }

        /** A string literal (RFC 7541 §5.2), Huffman-coded or raw. */
        String string() throws HpackException {
            if (pos >= end) {
                throw new HpackException("string literal missing at the end of the block");
            }
            boolean huffman = (buf[pos] & 0x80) != 0;
            int len = integer(7);
            if (len > end - pos) {
                throw new HpackException("string literal runs past the end of the block");
            }
            String s;
            if (huffman) {
                int most = Huffman.maxDecodedLength(len);
                byte[] into = decoded;
                if (most > KEPT_SCRATCH) {
                    into = new byte[most]; // a long string: its own array, not kept
                } else if (into == null || into.length < most) {
                    into = decoded = new byte[Math.max(most, MIN_SCRATCH)];
                }
                s = new String(into, 0, Huffman.decode(buf, pos, len, into), StandardCharsets.ISO_8859_1);
            } else {
                s = new String(buf, pos, len, StandardCharsets.ISO_8859_1);
            }
            pos += len;
            return s;
        }
    }
}
