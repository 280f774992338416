package io.loomgate.http1;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A body of exactly {@code length} bytes (Content-Length). Never asks the connection for a byte beyond its end; a
 * connection that ends early is an {@link EOFException}, never a short body reported as whole. Lifecycle: reading
 * until {@code remaining} is 0, then complete.
 */
final class FixedLengthInputStream extends BodyInputStream {
    private final HttpInput in;
    private final long length;
    private long remaining;

    FixedLengthInputStream(HttpInput in, long length) {
        this.in = in;
        this.length = length;
        this.remaining = length;
    }

    @Override
    public int read() throws IOException {
        if (remaining == 0) {
            return -1;
        }
        int c = in.read();
        if (c < 0) {
            throw truncated();
        }
        remaining--;
        return c;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (asksForNothing(b, off, len)) {
            return 0;
        }
        if (remaining == 0) {
            return -1;
        }
        int n = in.read(b, off, (int) Math.min(len, remaining));
        return counted(n);
    }

    @Override
    public boolean readsDirect() {
        return in.readsDirect();
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        if (!dst.hasRemaining()) {
            return 0;
        }
        if (remaining == 0) {
            return -1;
        }
        int limit = dst.limit();
        if (dst.remaining() > remaining) {
            dst.limit(dst.position() + (int) remaining); // never a byte of the next message
        }
        int n;
        try {
            n = in.read(dst);
        } finally {
            dst.limit(limit);
        }
        return counted(n);
    }

    @Override
    public int available() {
        return (int) Math.min(in.buffered(), remaining);
    }

    @Override
    public boolean awaitData() throws IOException {
        if (remaining == 0) {
            return false;
        }
        in.awaitBodyData();
        return true;
    }

    @Override
    public boolean isComplete() {
        return remaining == 0;
    }

    /** Does not start when more than {@code maxBytes} are left: that many could never make the body complete. */
    @Override
    public boolean drain(long maxBytes) throws IOException {
        if (remaining > maxBytes) {
            return false;
        }
        while (remaining > 0) {
            long n = in.discard(remaining);
            if (n < 0) {
                throw truncated();
            }
            remaining -= n;
        }
        return true;
    }

    /** Counts {@code n} bytes read off what is left; a connection that ended (-1) is a truncated body. */
    private int counted(int n) throws EOFException {
        if (n < 0) {
            throw truncated();
        }
        remaining -= n;
        return n;
    }

    private EOFException truncated() {
        return new EOFException("body ended after " + (length - remaining) + " of " + length + " bytes");
    }
}
