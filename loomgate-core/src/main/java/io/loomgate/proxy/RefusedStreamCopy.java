package io.loomgate.proxy;

import io.loomgate.http1.BodyInputStream;
import io.loomgate.http1.ForwardingBodyInputStream;
import java.io.IOException;
import java.util.Arrays;

/**
 * The client's request body as an HTTP/2 attempt sends it, on a route without a {@code Retry} policy, with a copy of
 * the bytes read so far kept, at most {@code limit} of them: an origin that refuses the stream (RST_STREAM
 * REFUSED_STREAM, or a GOAWAY whose last stream is below it) processed none of it (RFC 9113 §8.7), so the request may
 * go again on a fresh connection, and {@link #rewind()} makes this body give the kept bytes first, then go on reading
 * the client. Once more than {@code limit} bytes went by, or the origin answered ({@link #drop()}), the copy is gone
 * and the body cannot be sent again. Session 56: before it, such a POST was a 502 (journal 2026-12-01-s55-h2goaway).
 *
 * <p>Why not {@link ReplayableBody} (a {@code Retry}'s copy): that one lets a retry take the body over while the
 * dropped attempt's upload is still blocked reading the client, which needs a lock held over that read. A refused
 * stream is retried only once its upload has ended ({@code RequestUpload.bodyLost}), so one thread at a time reads this
 * body: the attempt's upload, then the next one's. The request's thread asks {@link #rewind()} and
 * {@link #replayable()} only after the upload ended (its volatile {@code ended}, written after the last read, orders
 * them) and starts the next upload after; its {@link #drop()}, which may come while the upload still reads (an origin
 * that answers as it reads), only sets a volatile flag that the reader acts on. No lock.
 */
final class RefusedStreamCopy extends ForwardingBodyInputStream {
    private final int limit;
    /** The first buffer's size: the body's length when known (within the limit), else {@link #FIRST}. */
    private final int first;
    private static final int FIRST = 4096;
    // the reading thread's (see the class comment)
    private byte[] kept;
    private int keptLength;
    /** The next kept byte to give; {@code keptLength} once all were given (then the client is read). */
    private int position;
    /** The copy is gone: past the limit, or dropped. */
    private boolean gone;
    /** Set by the request's thread when the origin answered: the reader lets the copy go at its next read. */
    private volatile boolean unwanted;

    /** @param length the body's declared length, or -1 */
    RefusedStreamCopy(BodyInputStream client, int limit, long length) {
        super(client);
        this.limit = limit;
        this.first = length > 0 && length <= limit ? (int) length : FIRST;
    }

    /** Whether the body can still be given again from its first byte (asked once the reader has ended). */
    boolean replayable() {
        return !gone && !unwanted;
    }

    /** Gives the kept bytes first on the next reads; false when the copy is gone. After the reader ended. */
    boolean rewind() {
        if (!replayable()) {
            return false;
        }
        position = 0;
        return true;
    }

    /** The origin answered: no refusal can come any more, so the copy need not be kept (not while it is replayed). */
    void drop() {
        unwanted = true;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (asksForNothing(b, off, len)) {
            return 0;
        }
        if (position < keptLength) {
            int n = Math.min(len, keptLength - position);
            System.arraycopy(kept, position, b, off, n);
            position += n;
            return n;
        }
        int n = body.read(b, off, len);
        if (n > 0 && !gone) {
            keep(b, off, n);
        }
        return n;
    }

    private void keep(byte[] b, int off, int n) {
        if (unwanted || keptLength + n > limit) {
            gone = true;
            kept = null; // the memory goes back now: this body will not be sent again
            return;
        }
        if (kept == null || keptLength + n > kept.length) {
            int size = kept == null ? Math.max(first, n) : Math.max(keptLength + n, kept.length * 2);
            kept = kept == null ? new byte[Math.min(limit, size)] : Arrays.copyOf(kept, Math.min(limit, size));
        }
        System.arraycopy(b, off, kept, keptLength, n);
        keptLength += n;
        position = keptLength;
    }

    /** What a read gives without waiting: the relay flushes only when nothing more is waiting. */
    @Override
    public int available() throws IOException {
        return position < keptLength ? keptLength - position : body.available();
    }

    @Override
    public boolean awaitData() throws IOException {
        return position < keptLength || body.awaitData();
    }

    @Override
    public boolean isComplete() {
        return position >= keptLength && body.isComplete();
    }
}
