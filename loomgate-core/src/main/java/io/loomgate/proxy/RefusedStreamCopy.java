package io.loomgate.proxy;

import io.loomgate.http1.BodyInputStream;
import io.loomgate.http1.ForwardingBodyInputStream;
import io.loomgate.threads.VarHandles;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.SocketTimeoutException;
import java.util.Arrays;

/**
 * The client's request body as an HTTP/2 attempt sends it, on a route without a {@code Retry} policy, with a copy of
 * the bytes read so far kept, at most {@code limit} of them: an origin that refuses the stream (RST_STREAM
 * REFUSED_STREAM, or a GOAWAY whose last stream is below it) processed none of it (RFC 9113 §8.7), so the request may
 * go again on a fresh connection, and {@link #rewind()} makes this body give the kept bytes first, then go on reading
 * the client. Once more than {@code limit} bytes went by, or the origin answered ({@link #drop()}), the copy is gone
 * and the body cannot be sent again. Session 56: before it, such a POST was a 502 (journal 2026-12-01-s55-h2goaway).
 *
 * <p>Why not {@link ReplayableBody} (a {@code Retry}'s copy): that one holds a lock over every read of the client so
 * that a retry may take the body over at any moment; this one is on every POST to an HTTP/2 origin, so its common
 * path has no lock, and its object is no larger than before session 58 (40 bytes: the hand-over's state is the
 * successor's, a subclass made only then); its writes of {@code kept} and {@code keptLength} are release stores, plain
 * stores on x86.
 *
 * <p><b>One owner at a time.</b> The copy's reader (the attempt's upload, beside the request's thread) owns the
 * client's body, {@code kept} and {@code keptLength}; nobody else writes them. Ownership moves to another reader in
 * one of two ways, each with one happens-before edge:
 * <ol>
 *   <li>The upload ended before the refusal: the request's thread asks {@link #replayable()} and {@link #rewind()}
 *       after it (the upload's volatile {@code ended}, written after its last read) and the next attempt's upload,
 *       started after, reads this same object.</li>
 *   <li>The upload is still running, maybe blocked in a read of the client that will not return until the client
 *       sends more (a full-duplex client waiting for the origin's answer first, a gRPC stream): session 58's
 *       {@link #handOver}. The request's thread moves {@code phase} from KEEPING to HANDED by compare-and-set (the
 *       reader's own move to GONE past the bound is the other compare-and-set from KEEPING, so exactly one wins) and
 *       makes a <em>successor</em>, the next attempt's body. The successor owns nothing yet: it has the prefix this
 *       reader published last ({@code keptLength} then {@code kept}, read with acquire; the reader stores them with
 *       release, the array's bytes before its length), whose bytes are never written again (a byte of the copy, once
 *       read into it, stays; a grown array is a new one holding the same prefix), so it sends them to the new stream
 *       at once, while this reader may still be writing past them. This reader sees HANDED before each read it would
 *       start and stops instead (its upload ends); a read already under way lands in the copy, kept whatever the bound
 *       or a {@link #drop()} says (the successor needs every byte; past the bound that is one read's worth, at most
 *       {@link BodyRelay#MAX_BUFFER}), then its write to the refused stream fails and its upload ends. The successor,
 *       once it has given the prefix, <b>joins this reader's upload thread</b> ({@link Upload#awaitEnd}, with the
 *       route's deadline): the one hand-off. After the join it reads this object's fields plainly (the thread's end
 *       happens-before the join's return), takes {@code kept} and {@code keptLength}, gives the bytes past the prefix,
 *       then reads the client itself: the client's body had one reader at each moment, the bytes reach the new stream
 *       in the client's order (prefix, the pending read, the rest), and no lock is held over any read. If this
 *       reader's last read failed, the successor fails with it (the client's failure, 408 or 499, from the upload's
 *       own record of it); if it is still reading at the deadline, its read is cut as a stopped upload's is.</li>
 * </ol>
 * A successor refused in turn before it took over hands over what it has: its own successor's join goes on to the
 * reader it was waiting for. The request's thread's {@link #drop()}, which may come while the reader reads (an origin
 * that answers as it reads), only moves {@code phase} to DROPPED, which the reader acts on.
 *
 * <p>A body of declared length within the limit is relayed from the copy's own array ({@link #relay}), so its bytes are
 * allocated once, not also in {@link BodyRelay}'s buffer (session 56, h2copy: the copy cost a 1 KiB POST to an h2
 * origin +23% bytes allocated). That sharing is safe for the same reason: the relay reads only into the part after
 * {@code keptLength}, and what it hands the origin's stream ({@code Http2ClientStream}'s request body, whose frame
 * writer copies the bytes into its batch before the write returns) is always before it; a replay only reads the
 * array. The array goes to no pool and no direct-buffer path.
 */
sealed class RefusedStreamCopy extends ForwardingBodyInputStream permits RefusedStreamCopy.Successor {
    private static final byte KEEPING = 0;
    /** The origin answered: no refusal can come any more, so the reader lets the copy go at its next read. */
    private static final byte DROPPED = 1;
    /** A successor took the body over (see the class comment): this reader starts no read any more. */
    private static final byte HANDED = 2;
    /** The reader let the copy go past the limit. */
    private static final byte GONE = 3;
    private static final VarHandle PHASE = VarHandles.field(MethodHandles.lookup(), "phase", byte.class);
    private static final VarHandle KEPT = VarHandles.field(MethodHandles.lookup(), "kept", byte[].class);
    private static final VarHandle KEPT_LENGTH = VarHandles.field(MethodHandles.lookup(), "keptLength", int.class);

    /** The refused attempt's upload, as its successor waits for it to end. */
    @FunctionalInterface
    interface Upload {
        /**
         * Waits until {@code deadlineNanos} (System.nanoTime()) for the upload's thread to end: the client's failure
         * if its last read failed, else null; a {@link SocketTimeoutException} if it still read at the deadline (its
         * read of the client is then cut).
         */
        IOException awaitEnd(long deadlineNanos) throws SocketTimeoutException;

        /**
         * The exchange ended with the body never taken up ({@link #abandon}): the upload's pending read of the client
         * is cut, without a wait (over HTTP/1.1 the client's input is shut down, which also closes its connection
         * after its answer; an HTTP/2 stream's read ends with the stream).
         */
        default void cut() {
        }
    }

    private final int limit;
    /** The first buffer's size: the body's length when known (within the limit), else {@link #FIRST}. */
    private final int first;
    /** Whether the body's length is declared and within the limit: its array is then the relay's ({@link #relay}). */
    private final boolean sized;
    private static final int FIRST = 4096;
    // the reading thread's (see the class comment); kept and keptLength stored with release (KEPT, KEPT_LENGTH)
    private byte[] kept;
    private int keptLength;
    /** The next kept byte to give; {@code keptLength} once all were given (then the client is read). */
    private int position;
    /** The copy is gone: past the limit, or dropped. */
    private boolean gone;
    /** KEEPING, DROPPED, HANDED or GONE: moved off KEEPING once, by compare-and-set. */
    private volatile byte phase; // KEEPING as made

    /** @param length the body's declared length, or -1 */
    RefusedStreamCopy(BodyInputStream client, int limit, long length) {
        super(client);
        this.limit = limit;
        this.sized = length > 0 && length <= limit;
        this.first = sized ? (int) length : FIRST;
    }

    /** A successor's start: the prefix {@code previous} published last (see the class comment). */
    private RefusedStreamCopy(RefusedStreamCopy previous) {
        super(previous.body);
        this.limit = previous.limit;
        this.sized = previous.sized;
        this.first = previous.first;
        this.keptLength = (int) KEPT_LENGTH.getAcquire(previous);
        this.kept = (byte[]) KEPT.getAcquire(previous); // that length's array or a later one: the same prefix
    }

    /**
     * The request's thread, after a refusal while {@code upload} still reads this body: the body for the next
     * attempt, which sends the kept bytes at once and reads the client once that upload ended (waited for until
     * {@code deadlineNanos}); null when the copy is gone or dropped (the body cannot go again).
     */
    RefusedStreamCopy handOver(Upload upload, long deadlineNanos) {
        if (!PHASE.compareAndSet(this, KEEPING, HANDED)) {
            return null;
        }
        return new Successor(this, upload, deadlineNanos);
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
            sent += sendKept(to);
        }
        while (!gone && keptLength < first) {
            byte p = phase;
            if (p == DROPPED) {
                gone = true;
                kept = null; // the origin answered: the rest needs no copy
                break;
            }
            if (p == HANDED) {
                throw handedOver();
            }
            int n;
            try {
                if (kept == null) {
                    if (!body.awaitData()) { // as BodyRelay: no array while the client has sent nothing
                        break;
                    }
                    KEPT.setRelease(this, new byte[first]);
                }
                n = body.read(kept, keptLength, first - keptLength);
            } catch (IOException e) {
                throw new BodyRelay.ReadFailed(e);
            }
            if (n < 0) {
                break;
            }
            KEPT_LENGTH.setRelease(this, keptLength + n); // after the bytes: a successor may send them now
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

    /**
     * The kept bytes not given yet, from the array; flushed unless the client has more waiting (a successor's prefix
     * always: it waits for its predecessor next, and a full-duplex client waits for the origin's answer to it).
     */
    final int sendKept(OutputStream to) throws IOException {
        int from = position;
        position = keptLength;
        return send(to, kept, from, keptLength - from);
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

    /** Whether kept bytes are still to be given before the client is read. */
    final boolean keptToGive() {
        return position < keptLength;
    }

    /** A successor, once {@code p}'s reader ended: its copy is this one's, from where this reader stands. */
    final void adopt(RefusedStreamCopy p) {
        KEPT.setRelease(this, p.kept); // the array before its length, as the reader stores them
        KEPT_LENGTH.setRelease(this, p.keptLength);
    }

    private static BodyRelay.WriteFailed handedOver() {
        return new BodyRelay.WriteFailed(new IOException("the request body went to the refused stream's retry"));
    }

    /** Whether the body can still be given again from its first byte (asked once the reader has ended). */
    boolean replayable() {
        return !gone && phase == KEEPING;
    }

    /** Gives the kept bytes first on the next reads; false when the copy is gone. After the reader ended. */
    boolean rewind() {
        if (!replayable()) {
            return false;
        }
        position = 0;
        return true;
    }

    /**
     * The exchange is over (the request's thread, after its last attempt was closed): a successor that no upload took
     * up (the retry failed before it sent a body: its dial refused, a breaker open, no retry allowed) cuts the read
     * the refused upload still has pending on the client and waits for it briefly, so that the body has no reader left
     * beside the connection's own (see {@link Successor#abandon}). Nothing for a body that was not handed over.
     */
    void abandon() {
    }

    /** The origin answered: no refusal can come any more, so the copy need not be kept (not while it is replayed). */
    void drop() {
        PHASE.compareAndSet(this, KEEPING, DROPPED);
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
        if (phase == HANDED) {
            throw handedOver();
        }
        int n = body.read(b, off, len);
        if (n > 0 && !gone) {
            keep(b, off, n);
        }
        return n;
    }

    private void keep(byte[] b, int off, int n) {
        if (letGo(n)) {
            gone = true;
            kept = null; // the memory goes back now: this body will not be sent again
            return;
        }
        if (kept == null || keptLength + n > kept.length) {
            int size = kept == null ? Math.max(first, n) : Math.max(keptLength + n, kept.length * 2);
            size = Math.max(keptLength + n, Math.min(limit, size)); // past the limit only for a successor
            KEPT.setRelease(this, kept == null ? new byte[size] : Arrays.copyOf(kept, size));
        }
        System.arraycopy(b, off, kept, keptLength, n);
        KEPT_LENGTH.setRelease(this, keptLength + n); // after the bytes: a successor may send them now
        position = keptLength;
    }

    /**
     * Whether a read of {@code n} more bytes lets the copy go: dropped, or past the limit (then GONE, unless a
     * successor took the body over meanwhile: it gets this read whatever its size).
     */
    private boolean letGo(int n) {
        while (true) {
            byte p = phase;
            if (p == HANDED) {
                return false;
            }
            if (p == DROPPED) {
                return true;
            }
            if (keptLength + n <= limit) {
                return false;
            }
            if (PHASE.compareAndSet(this, KEEPING, GONE)) {
                return true;
            }
        }
    }

    /** What a read gives without waiting: the relay flushes only when nothing more is waiting. */
    @Override
    public int available() throws IOException {
        return position < keptLength ? keptLength - position : body.available();
    }

    @Override
    public boolean awaitData() throws IOException {
        if (position < keptLength) {
            return true;
        }
        if (phase == HANDED) {
            throw handedOver();
        }
        return body.awaitData();
    }

    @Override
    public boolean isComplete() {
        return position >= keptLength && body.isComplete();
    }

    /**
     * The next attempt's body after a refusal mid-upload ({@link #handOver}): the prefix at once, then, before it
     * reads anything past it, waits for its predecessor's upload to end and takes its copy over (see the class
     * comment). Made only then: the fields below cost nothing to a request that is not refused.
     */
    static final class Successor extends RefusedStreamCopy {
        /** The reader this one takes the body over from once its upload ended; null once taken. */
        private RefusedStreamCopy predecessor;
        private Upload upload;
        private final long deadlineNanos;

        /** Whether an upload took this successor up, or the exchange abandoned it: set once ({@link #CLAIM}). */
        @SuppressWarnings("unused")
        private volatile byte claim; // UNCLAIMED as made
        private static final VarHandle CLAIM = VarHandles.field(MethodHandles.lookup(), "claim", byte.class);
        private static final byte UNCLAIMED = 0;
        private static final byte TAKEN = 1;
        private static final byte ABANDONED = 2;

        private Successor(RefusedStreamCopy previous, Upload upload, long deadlineNanos) {
            super(previous);
            this.predecessor = previous;
            this.upload = upload;
            this.deadlineNanos = deadlineNanos;
        }

        /**
         * No upload took this body up before the exchange ended: the read the refused upload still has pending on the
         * client is cut ({@link Upload#cut}; over HTTP/1.1 that shuts the client's input down, which ends any read of
         * it in the chain, and closes the connection after its answer, since the rest of its body can never be read).
         * No wait: nothing reads the body after this. One compare-and-set against the upload's own take-up decides
         * who acts: an upload that took it up owns the chain, and its attempt's stop cuts the same read.
         */
        @Override
        void abandon() {
            if (CLAIM.compareAndSet(this, UNCLAIMED, ABANDONED) && upload != null) {
                upload.cut();
            }
        }

        /**
         * Waits for the predecessor's upload to end, then owns its copy; fails with the client's failure if its last
         * read failed, or when it still read at the deadline (its read is then cut). An upload's first call takes the
         * body up; after the exchange abandoned it ({@link #abandon}), it fails.
         */
        private void takeOver() throws IOException {
            if (predecessor != null && !CLAIM.compareAndSet(this, UNCLAIMED, TAKEN)) {
                predecessor = null;
                throw new IOException("the request body's retry was abandoned: the exchange ended");
            }
            while (predecessor != null) {
                RefusedStreamCopy p = predecessor;
                IOException client;
                try {
                    client = upload.awaitEnd(deadlineNanos);
                } catch (SocketTimeoutException e) {
                    predecessor = null;
                    throw e;
                }
                if (client != null) {
                    predecessor = null;
                    throw client;
                }
                // p's upload ended (joined): its fields are this thread's to read now
                if (p instanceof Successor s && s.predecessor != null) {
                    predecessor = s.predecessor; // refused before it took over: the reader it waited for is ours
                    upload = s.upload;
                    continue;
                }
                predecessor = null;
                upload = null;
                adopt(p);
            }
        }

        @Override
        long relay(OutputStream to) throws IOException {
            long sent = 0;
            if (predecessor != null) {
                if (keptToGive()) {
                    sent = sendKept(to); // the prefix, flushed (nothing waits while the predecessor reads)
                }
                try {
                    takeOver();
                } catch (IOException e) {
                    throw new BodyRelay.ReadFailed(e);
                }
            }
            return sent + super.relay(to); // what the predecessor's last read brought, then the client
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (predecessor != null && !keptToGive() && len > 0) {
                takeOver();
            }
            return super.read(b, off, len);
        }

        @Override
        public boolean awaitData() throws IOException {
            if (predecessor != null && !keptToGive()) {
                takeOver();
            }
            return super.awaitData();
        }

        @Override
        public int available() throws IOException {
            return predecessor != null && !keptToGive() ? 0 : super.available();
        }

        @Override
        public boolean isComplete() {
            return predecessor == null && super.isComplete();
        }
    }
}
