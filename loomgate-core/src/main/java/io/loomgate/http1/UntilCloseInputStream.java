package io.loomgate.http1;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A response body delimited by the origin closing the connection (RFC 9112 §6.3 rule 8). Complete once the end of
 * stream has been seen; the connection can then never be reused.
 */
final class UntilCloseInputStream extends BodyInputStream {
    private final HttpInput in;
    private boolean ended;

    UntilCloseInputStream(HttpInput in) {
        this.in = in;
    }

    @Override
    public int read() throws IOException {
        if (ended) {
            return -1;
        }
        int c = in.read();
        ended = c < 0;
        return c;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (asksForNothing(b, off, len)) {
            return 0;
        }
        if (ended) {
            return -1;
        }
        int n = in.read(b, off, len);
        ended = n < 0;
        return n;
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
        if (ended) {
            return -1;
        }
        int n = in.read(dst);
        ended = n < 0;
        return n;
    }

    @Override
    public int available() throws IOException {
        return ended ? 0 : in.available();
    }

    @Override
    public boolean awaitData() throws IOException {
        if (ended) {
            return false;
        }
        in.awaitBodyData();
        return true;
    }

    @Override
    public boolean isComplete() {
        return ended;
    }

    @Override
    public boolean drain(long maxBytes) throws IOException {
        long left = maxBytes;
        while (!ended && left >= 0) {
            long n = in.discard(left < Long.MAX_VALUE ? left + 1 : left);
            if (n < 0) {
                ended = true;
            } else {
                left -= n;
            }
        }
        return ended;
    }
}
