package io.loomgate.http2;

import java.util.Arrays;

/**
 * A header block as the HPACK encoder writes it: a growable byte array whose bytes are {@code array()[0, length())}.
 * Not a ByteArrayOutputStream, whose every {@code write} takes a lock: the encoder writes a byte at a time. Owned by
 * the one thread that encodes and sends the block.
 */
final class HeaderBlock {
    private byte[] buf;
    private int count;

    HeaderBlock(int capacity) {
        buf = new byte[Math.max(16, capacity)];
    }

    void write(int b) {
        if (count == buf.length) {
            buf = Arrays.copyOf(buf, buf.length * 2);
        }
        buf[count++] = (byte) b;
    }

    void write(byte[] b, int off, int len) {
        if (count + len > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, count + len));
        }
        System.arraycopy(b, off, buf, count, len);
        count += len;
    }

    int length() {
        return count;
    }

    /** The buffer itself (not a copy): only its first {@link #length()} bytes are the block. */
    byte[] array() {
        return buf;
    }

    byte[] toByteArray() {
        return Arrays.copyOf(buf, count);
    }
}
