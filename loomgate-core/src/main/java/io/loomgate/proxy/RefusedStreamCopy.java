package io.loomgate.proxy;

import io.loomgate.http1.BodyInputStream;
import io.loomgate.http1.ForwardingBodyInputStream;
import java.io.IOException;
import java.io.OutputStream;
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
 *
 * <p>A body of declared length within the limit is relayed from the copy's own array ({@link #relay}), so its bytes are
 * allocated once, not also in {@link BodyRelay}'s buffer (session 56, h2copy: the copy cost a 1 KiB POST to an h2
 * origin +23% bytes allocated). That sharing is safe because a byte of the array, once read into it, is never
 * written again: the relay reads only into the part after {@code keptLength}, and what it hands the origin's stream
 * ({@code Http2ClientStream}'s request body, whose frame writer copies the bytes into its batch before the write
 * returns) is always before it; a replay only reads the array. The array goes to no pool and no direct-buffer path.
 */
final class RefusedStreamCopy extends ForwardingBodyInputStream {
    private final int limit;
    /** The first buffer's size: the body's length when known (within the limit), else {@link #FIRST}. */
    private final int first;
    /** Whether the body's length is declared and within the limit: its array is then the relay's ({@link #relay}). */
    private final boolean sized;
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
        this.sized = length > 0 && length <= limit;
        this.first = sized ? (int) length : FIRST;
    }

    /** Whether {@link #relay} can send this body from the copy's own array: its length is declared, within the limit. */
    boolean relaysFromCopy() {
        return sized;
    }

    /**
     * The HTTP/2 upload of a body whose length is declared within the limit ({@link #relaysFromCopy()}), instead of
     * {@link BodyRelay#copy}: the kept bytes first (a retry), then the client's, each read straight into the copy's
     * array at its end and written from there. The relay's flushing is {@code BodyRelay}'s: whenever nothing more is
     * waiting. Once dropped ({@link #drop()}), the copy is let go at the next read and the rest goes through
     * {@code BodyRelay}, as it would have. Returns the bytes sent; failures come out as {@link BodyRelay.ReadFailed}
     * or {@link BodyRelay.WriteFailed}, as from {@code BodyRelay}.
     */
    long relay(OutputStream to) throws IOException {
        long sent = 0;
        if (position < keptLength) { // a retry: what the refused attempt read goes again from the array
            int n = keptLength - position;
            sent += send(to, kept, position, n);
            position = keptLength;
        }
        while (!gone && keptLength < first) {
            if (unwanted) {
                gone = true;
                kept = null; // the origin answered: the rest needs no copy
                break;
            }
            int n;
            try {
                if (kept == null) {
                    if (!body.awaitData()) { // as BodyRelay: no array while the client has sent nothing
                        break;
                    }
                    kept = new byte[first];
                }
                n = body.read(kept, keptLength, first - keptLength);
            } catch (IOException e) {
                throw new BodyRelay.ReadFailed(e);
            }
            if (n < 0) {
                break;
            }
            keptLength += n;
            position = keptLength;
            sent += send(to, kept, keptLength - n, n);
        }
        if (!gone) {
            // The body's end, awaited as BodyRelay.copy's first step does, without a buffer (the client's END_STREAM
            // may come in a frame of its own after the last byte), and without the copy's state (its progress
            // counter): a body that ended here costs nothing more (session 57, h2alloc)
            try {
                if (!body.awaitData()) {
                    return sent;
                }
            } catch (IOException e) {
                throw new BodyRelay.ReadFailed(e);
            }
        }
        // the rest once dropped, or whatever is still there: read as BodyRelay reads it
        return sent + BodyRelay.copy(body, to, gone ? first - keptLength : 0);
    }

    private int send(OutputStream to, byte[] b, int off, int n) throws IOException {
        try {
            to.write(b, off, n);
            if (available() == 0) {
                to.flush();
            }
        } catch (IOException e) {
            throw new BodyRelay.WriteFailed(e);
        }
        return n;
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
