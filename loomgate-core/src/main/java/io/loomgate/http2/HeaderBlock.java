package io.loomgate.http2;

import java.util.Arrays;

/**
 * A header block as the HPACK encoder writes it: a growable byte array whose bytes are {@code array()[0, length())}.
 * Not a ByteArrayOutputStream, whose every {@code write} takes a lock: the encoder writes a byte at a time. Owned by
 * the one thread that encodes and sends the block.
 *
 * <p>Or a view of another buffer ({@link #continueIn}): the frame writer has a response's block encoded straight
 * into its batch, after the frames already there.
 */
final class HeaderBlock {
    private byte[] buf;
    private int count;

    HeaderBlock(int capacity) {
        buf = new byte[Math.max(16, capacity)];
    }

    /**
     * From now on writes go into {@code into} from {@code from} on (grown as an array of its own: a copy of it, which
     * {@link #array()} then answers). The frame writer's batch: {@code into} is its buffer, {@code from} its count.
     */
    void continueIn(byte[] into, int from) {
        buf = into;
        count = from;
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
