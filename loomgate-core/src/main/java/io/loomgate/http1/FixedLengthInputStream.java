package io.loomgate.http1;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A body of exactly {@code length} bytes (Content-Length). Never asks the connection for a byte beyond its end; a
 * connection that ends early is an {@link EOFException}, never a short body reported as whole. Lifecycle: reading
 * until {@code remaining} is 0, then complete.
 */
final class FixedLengthInputStream extends CountedBodyInputStream {
    private final long length;

    FixedLengthInputStream(HttpInput in, long length) {
        super(in, length);
        this.length = length;
    }

    /** One run: its end is the body's. */
    @Override
    boolean nextRun() {
        return false;
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
                throw endedEarly();
            }
            remaining -= n;
        }
        return true;
    }

    @Override
    EOFException endedEarly() {
        return new EOFException("body ended after " + (length - remaining) + " of " + length + " bytes");
    }
}
