package io.loomgate.proxy;

import io.loomgate.http.Headers;
import io.loomgate.http1.BodyInputStream;
import java.io.IOException;
import java.util.Arrays;

/**
 * The client's request body, kept while it streams so a retry can send it again: every byte read from the client is
 * also copied into a buffer of at most {@code limit} bytes. {@link #rewind()} starts a new pass that gives the kept
 * bytes first and then goes on reading the client, so a body the first attempt never got to (the connect failed)
 * or sent only in part is whole on every attempt. Once more than {@code limit} bytes went by, the body can no longer
 * be replayed ({@link #replayable()} is false) and only the first pass exists.
 *
 * <p>Owned by the request's thread, like the exchange; not thread-safe.
 */
final class ReplayableBody extends BodyInputStream {
    private final BodyInputStream client;
    private final int limit;
    private byte[] kept = new byte[0];
    private int keptLength;
    private boolean overflowed;
    private int replayPosition = -1; // < 0: reading the client; otherwise the next kept byte to give again

    ReplayableBody(BodyInputStream client, long limit) {
        this.client = client;
        this.limit = (int) Math.min(limit, Integer.MAX_VALUE - 8);
    }

    /** Whether a new pass can still give the whole body from its start. */
    boolean replayable() {
        return !overflowed;
    }

    /** Starts a new pass from the first byte. */
    void rewind() {
        if (overflowed) {
            throw new IllegalStateException("the request body outgrew max-replay-size and cannot be sent again");
        }
        replayPosition = 0;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (replayPosition >= 0 && replayPosition < keptLength) {
            int n = Math.min(len, keptLength - replayPosition);
            System.arraycopy(kept, replayPosition, b, off, n);
            replayPosition += n;
            return n;
        }
        int n = client.read(b, off, len);
        if (n > 0) {
            keep(b, off, n);
            if (replayPosition >= 0) {
                replayPosition = keptLength;
            }
        }
        return n;
    }

    private void keep(byte[] b, int off, int n) {
        if (overflowed) {
            return;
        }
        if (keptLength + n > limit) {
            overflowed = true;
            kept = null; // the memory goes back now: this body will not be sent again
            return;
        }
        if (keptLength + n > kept.length) {
            kept = Arrays.copyOf(kept, Math.min(limit, Math.max(keptLength + n, Math.max(4096, kept.length * 2))));
        }
        System.arraycopy(b, off, kept, keptLength, n);
        keptLength += n;
    }

    @Override
    public void startReading() throws IOException {
        client.startReading();
    }

    @Override
    public boolean isComplete() {
        return (replayPosition < 0 || replayPosition >= keptLength) && client.isComplete();
    }

    @Override
    public Headers trailers() {
        return client.trailers();
    }
}
