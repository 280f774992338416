package io.loomgate.tls;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLEngineResult.Status;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;

/**
 * One TLS connection's records: drives the provider's {@link SSLEngine} over the socket, with buffers borrowed for each
 * call and given back as soon as they are empty, so an idle connection holds none. A listener's (JSSE's or
 * Conscrypt's engine, server mode, over the accepted channel) and, with {@code upstream.ssl.provider: conscrypt}, a
 * connection to an origin (Conscrypt's engine in client mode, {@link ClientTls}): there the gateway must know whether
 * the origin's stream ended with close_notify or was cut ({@link #endedWithoutCloseNotify()}), which Conscrypt's own
 * socket does not say.
 *
 * <p>Reads go through the socket's stream, where {@code SO_TIMEOUT} applies: a read that outlives it throws
 * {@link java.net.SocketTimeoutException} and leaves everything as it was (a partial record stays buffered), which
 * is how an idle connection learns it may hand its thread to the idle poller. Writes go to the channel, and on a
 * channel in non-blocking mode (the poller's GOAWAY to a parked connection) a write that cannot proceed fails rather
 * than spins.
 *
 * <p>Threads: one reader at a time (the connection's thread; the reading state is its own). Writers are serialized
 * by a {@code ReentrantLock} (a virtual thread blocked in a write never pins its carrier), which the reader takes too
 * when the engine has something to say after a record: a handshake message, a KeyUpdate, an alert, a close_notify.
 * The engine itself lets wrap and unwrap run from different threads.
 *
 * <p>Why not a library (tls-channel drove the engine before): for each connection it kept two allocation-tracking
 * wrappers with eight {@code LongAdder}s, four locks and three buffer holders, about 0.85 KB of an idle h2-over-TLS
 * connection's 7.0 KB, and allocated a fresh record buffer for each read and write that needed one; the loop itself
 * is a connection loop, which the gateway owns (docs/architecture.md, "TLS").
 */
final class EngineChannel {
    private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);
    /** The first read's own array when the pool has no buffer: a request's record, with room to spare. */
    private static final int FIRST_READ = 2048;
    /** A TLS record's header: content type, version, length (RFC 8446 §5.1). */
    private static final int RECORD_HEADER = 5;
    /** A socket read of at least this much ciphertext says the client sends in bulk (half a full record). */
    private static final int BULK_READ = 8 * 1024;

    private final SSLEngine engine;
    /** Where records are written; null on a socket of another transport (epoll's), which is written as a stream. */
    private final SocketChannel channel;
    private final OutputStream socketOut;
    private final InputStream socketIn;
    private final ReentrantLock writeLock = new ReentrantLock();

    /** Ciphertext read and not yet unwrapped (read mode); null when there is none. The reader's. */
    private ByteBuffer netIn;
    /** Plaintext unwrapped and not yet returned (read mode); null when there is none. The reader's. */
    private ByteBuffer appIn;
    /**
     * The engine itself holds plaintext of a record it has already taken in: Conscrypt's does when the destination
     * was too small for the record (it decrypts first and hands out what fits; JSSE refuses such an unwrap and takes
     * nothing). The next unwrap gets it with no new ciphertext. The reader's.
     */
    private boolean engineHoldsPlaintext;
    /** The peer's close_notify or FIN came. The reader's. */
    private boolean inputEnded;
    /**
     * The socket's stream ended (a FIN, or the watchdog's shutdown of the input) before the peer's close_notify: a cut,
     * not a close (RFC 8446 §6.1). Written by the reader, read by whoever asks ({@link #endedWithoutCloseNotify()}).
     */
    private volatile boolean endedWithoutCloseNotify;
    /**
     * The client sends faster than the gateway reads: the last socket read took at least {@link #BULK_READ} bytes.
     * Then the next reads go into a {@link RecordBuffers#BULK_SIZE} buffer, several records at a time, whenever that
     * much is already waiting. The reader's.
     */
    private boolean bulk;
    /** The first handshake is done: a handshake starting again over TLS 1.2 is the peer renegotiating. */
    private boolean established;
    /** What was refused of the peer after the handshake, and the count of records without data in a row. */
    private final PostHandshakeRefusals refusals = new PostHandshakeRefusals();
    /**
     * Records are encrypted into a direct buffer ({@link RecordBuffers#takeDirect()}) when one is free: for an engine
     * that works on native memory (Conscrypt's), which otherwise copies each record out of its own direct buffer into
     * the heap one, which the socket write then copies into a direct one again. JSSE encrypts on the heap.
     */
    private final boolean directWrites;

    EngineChannel(SSLEngine engine, Socket raw) throws IOException {
        this(engine, raw, false);
    }

    /**
     * @param directWrites whether records are encrypted into direct buffers (an engine on native memory); only on a
     *                     channel socket, where the channel writes them without a copy
     */
    EngineChannel(SSLEngine engine, Socket raw, boolean directWrites) throws IOException {
        this.engine = engine;
        this.channel = raw.getChannel();
        this.directWrites = directWrites && channel != null;
        this.socketOut = channel == null ? raw.getOutputStream() : null;
        this.socketIn = raw.getInputStream();
    }

    SSLEngine engine() {
        return engine;
    }

    /**
     * Runs the handshake on the calling thread. A refused handshake (an old protocol, no shared cipher, a missing or
     * untrusted client certificate) sends the engine's alert before the exception goes up, as JSSE's socket does:
     * the client learns why, not just that the connection closed.
     */
    void handshake() throws IOException {
        try {
            engine.beginHandshake();
            HandshakeStatus hs = engine.getHandshakeStatus();
            while (hs != HandshakeStatus.NOT_HANDSHAKING && hs != HandshakeStatus.FINISHED) {
                if (hs == HandshakeStatus.NEED_UNWRAP || hs == HandshakeStatus.NEED_UNWRAP_AGAIN) {
                    if (inputEnded || unwrapRecord(NOTHING) < 0) {
                        throw new EOFException("the " + peer() + " closed the connection during the TLS handshake");
                    }
                } else {
                    answerEngine(hs);
                }
                hs = engine.getHandshakeStatus();
            }
            established = true;
        } catch (SSLException e) {
            sendAlert();
            throw e;
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            sendAlert();
            throw refused(e);
        } finally {
            releaseEmpty();
        }
    }

    /**
     * A checked exception the engine let through undeclared: Conscrypt's unwrap passes on the trust manager's
     * {@link java.security.cert.CertificateException} (an expired or untrusted certificate) as it is, where its own
     * socket wraps it. Wrapped here the same way, so the caller sees an I/O failure that names its cause.
     */
    private static SSLHandshakeException refused(Exception e) {
        SSLHandshakeException h = new SSLHandshakeException(e.toString());
        h.initCause(e);
        return h;
    }

    /**
     * Why the peer was refused after the handshake (a TLS 1.2 renegotiation, {@value
     * PostHandshakeRefusals#MAX_RECORDS_WITHOUT_DATA} key updates or empty records in a row and one more), or null:
     * the listener counts it with the failed handshakes. Any thread.
     */
    String refusal() {
        return refusals.refusal();
    }

    /**
     * Whether the stream ended without the peer's close_notify: its connection was closed or reset under TLS (a crash,
     * or an attacker's FIN), so whatever the stream's end was to delimit may be cut short. False while the stream has
     * not ended, and after a close_notify.
     */
    boolean endedWithoutCloseNotify() {
        return endedWithoutCloseNotify;
    }

    /**
     * Decrypted bytes into {@code b}: at least one byte, or -1 after the peer's close_notify or FIN. After the
     * first record, every further record already read from the socket is unwrapped too, up to {@code len}: the
     * socket is read only while nothing has been returned, so a read never waits once it has bytes, and a client
     * that sends faster than the gateway relays (an upload) is moved in pieces of several records, not one record
     * per call (a write to the origin per 16 KiB record kept U2 at 0.6x HAProxy's rate, issue 34). Records that
     * carry no application data (a KeyUpdate) are handled on the way; a TLS 1.2 renegotiation is refused (an
     * {@link SSLHandshakeException}).
     */
    int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        int total = 0;
        try {
            while (true) {
                if (appIn != null) {
                    int n = Math.min(len - total, appIn.remaining());
                    appIn.get(b, off + total, n);
                    total += n;
                    if (appIn.hasRemaining()) {
                        return total;
                    }
                    releaseEmpty(); // wiped and given back before the next record is unwrapped
                }
                if (total == len) {
                    return total;
                }
                if (inputEnded) {
                    return total > 0 ? total : -1;
                }
                if (total > 0 && !engineHoldsPlaintext && !wholeRecordBuffered()) {
                    return total; // the next record is not all here: no waiting for it with bytes in hand
                }
                int n = unwrapRecord(ByteBuffer.wrap(b, off + total, len - total));
                if (n < 0) {
                    return total > 0 ? total : -1;
                }
                total += n;
            }
        } catch (SSLException e) {
            refusals.engineFailed(e); // BoringSSL's own bound on key updates and empty records
            sendAlert(); // bad_record_mac and the like: the peer learns why the connection ends
            throw e;
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) { // a post-handshake message refused by a check the engine let through undeclared
            sendAlert();
            throw refused(e);
        } finally {
            releaseEmpty();
        }
    }

    /** A whole TLS record waits in {@link #netIn}: its 5-byte header and the length that header gives. */
    private boolean wholeRecordBuffered() {
        ByteBuffer in = netIn;
        if (in == null || in.remaining() < RECORD_HEADER) {
            return false;
        }
        int p = in.position();
        int length = (in.get(p + 3) & 0xff) << 8 | in.get(p + 4) & 0xff;
        return in.remaining() >= RECORD_HEADER + length;
    }

    /**
     * Plaintext that a read would return now without touching the socket: what is left of the record a smaller read
     * took part of ({@link #appIn}), or, with Conscrypt, the rest of it the engine still holds (moved into
     * {@link #appIn} here, a decryption step with no socket read). Callers need this answer: a body relay reads what is
     * ready after its first byte and flushes when nothing is (BodyRelay), and with 0 here it moved an upload a byte at
     * a time, each byte flushed to the origin (issue 34). Not counted: whole records still encrypted in
     * {@link #netIn} (JSSE's socket does not count them either); the next read unwraps them without waiting.
     */
    int available() throws IOException {
        if (appIn == null && engineHoldsPlaintext && !inputEnded) {
            try {
                takeHeldPlaintext();
            } catch (SSLException e) {
                sendAlert();
                throw e;
            } finally {
                releaseEmpty();
            }
        }
        return appIn == null ? 0 : appIn.remaining();
    }

    /**
     * Everything a read could take without waiting, with no read: {@link #available()}'s plaintext, the ciphertext in
     * {@link #netIn} (whole records or not) and the socket's own count ({@code FIONREAD}). For a connection nobody
     * reads now (an idle one in the upstream pool): {@link #netIn} is the reader's.
     */
    int unreadBytes() throws IOException {
        return bufferedBytes() + socketIn.available();
    }

    /** {@link #unreadBytes()} but the socket's own count: no system call. */
    int bufferedBytes() throws IOException {
        ByteBuffer in = netIn;
        return available() + (in == null ? 0 : in.remaining());
    }

    /** Moves the plaintext Conscrypt's engine holds into {@link #appIn}; no ciphertext is offered, none is read. */
    private void takeHeldPlaintext() throws IOException {
        ByteBuffer target = ByteBuffer.wrap(RecordBuffers.take(engine.getSession().getApplicationBufferSize()));
        SSLEngineResult r = engine.unwrap(NOTHING, target);
        engineHoldsPlaintext = r.getStatus() == Status.BUFFER_OVERFLOW;
        target.flip();
        if (target.hasRemaining()) {
            appIn = target;
        } else {
            RecordBuffers.give(target.array());
        }
        if (r.getStatus() == Status.CLOSED) {
            inputEnded = true;
        }
    }

    /** Encrypts and writes all of {@code b}, a record at a time. */
    void write(byte[] b, int off, int len) throws IOException {
        write(b, off, len, null);
    }

    /**
     * Encrypts all of {@code b} as {@link #write} does and hands the records back instead of writing them: the GOAWAY
     * of an idle connection parked on a socket with no channel (epoll's), which cannot be made non-blocking as a
     * parked channel is, so the idle poller sends these bytes with one send that never waits.
     */
    byte[] seal(byte[] b) throws IOException {
        ByteArrayOutputStream records = new ByteArrayOutputStream(b.length + 64);
        write(b, 0, b.length, records);
        return records.toByteArray();
    }

    /** As {@link #write}; into {@code sealed} instead of the socket when it is given. */
    private void write(byte[] b, int off, int len, ByteArrayOutputStream sealed) throws IOException {
        if (len == 0) {
            return;
        }
        ByteBuffer src = ByteBuffer.wrap(b, off, len);
        writeLock.lock();
        ByteBuffer direct = directWrites ? RecordBuffers.takeDirect() : null;
        byte[] buffer = direct == null ? RecordBuffers.take(RecordBuffers.SIZE) : null;
        try {
            ByteBuffer out = direct != null ? direct : ByteBuffer.wrap(buffer);
            while (src.hasRemaining()) {
                out.clear();
                SSLEngineResult r = engine.wrap(src, out);
                switch (r.getStatus()) {
                    case OK -> {
                        out.flip();
                        if (sealed == null) {
                            writeFully(out);
                        } else {
                            byte[] record = new byte[out.remaining()];
                            out.get(record);
                            sealed.write(record, 0, record.length);
                        }
                        if (r.getHandshakeStatus() == HandshakeStatus.NEED_TASK) {
                            runTasks();
                        }
                    }
                    case BUFFER_OVERFLOW -> out = larger(out);
                    case CLOSED -> throw new SocketException("the TLS connection is closed for writing");
                    default -> throw new SSLException("unexpected engine status " + r.getStatus() + " on wrap");
                }
            }
        } finally {
            writeLock.unlock();
            if (direct != null) {
                RecordBuffers.giveDirect(direct);
            } else {
                RecordBuffers.give(buffer);
            }
        }
    }

    /**
     * Sends close_notify, unless another thread is in a write: then the caller's close of the socket ends the
     * connection without it (a writer blocked on a client that stopped reading must not hold up the close).
     */
    void closeOutbound() {
        engine.closeOutbound();
        flushUnlessWriting();
    }

    /** TLS's half-close: close_notify now, whoever is writing (the caller then shuts the socket's output down). */
    void shutdownOutput() throws IOException {
        engine.closeOutbound();
        writeLock.lock();
        try {
            flushEngineOutput();
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * Unwraps one record into {@code dst}, or into {@link #appIn} when {@code dst} has no room for it, after reading
     * from the socket while no whole record is buffered (and the engine holds no plaintext: Conscrypt's fills a small
     * {@code dst} and keeps the rest of the record, see {@link #engineHoldsPlaintext}). Returns the bytes put into
     * {@code dst}, 0 when the record went to {@link #appIn} or carried no application data, -1 at the end of the
     * stream.
     */
    private int unwrapRecord(ByteBuffer dst) throws IOException {
        ByteBuffer target = dst;
        SSLEngineResult r;
        try {
            while (true) {
                boolean ciphertext = netIn != null && netIn.hasRemaining();
                if (ciphertext || engineHoldsPlaintext) {
                    r = engine.unwrap(ciphertext ? netIn : NOTHING, target);
                    engineHoldsPlaintext = r.getStatus() == Status.BUFFER_OVERFLOW;
                    if (engineHoldsPlaintext && r.bytesProduced() > 0) {
                        break; // Conscrypt: part of the record, the rest stays in the engine for the next read
                    }
                    if (engineHoldsPlaintext && target == dst) {
                        // Checked before the record is complete: the room for it is taken once, the bytes may follow.
                        target = ByteBuffer.wrap(RecordBuffers.take(engine.getSession().getApplicationBufferSize()));
                        continue;
                    }
                    if (engineHoldsPlaintext) {
                        throw new SSLException("a TLS record larger than the session's application buffer");
                    }
                    if (r.getStatus() != Status.BUFFER_UNDERFLOW || r.bytesProduced() > 0) {
                        break;
                    }
                }
                if (!fill()) {
                    inputEnded = true;
                    endedWithoutCloseNotify = true;
                    return -1;
                }
            }
            if (target != dst) {
                target.flip();
                if (target.hasRemaining()) {
                    appIn = target;
                }
            }
        } finally {
            if (target != dst && target != appIn) {
                RecordBuffers.give(target.array());
            }
        }
        if (r.getStatus() == Status.CLOSED) {
            inputEnded = true;
        } else if (established && r.getHandshakeStatus() != HandshakeStatus.NOT_HANDSHAKING
                && r.getHandshakeStatus() != HandshakeStatus.FINISHED && isTls12()) {
            refuseRenegotiation();
        } else if (established && refusals.oneTooMany(r.bytesProduced())) {
            closeOutbound(); // close_notify instead of the engine's answer (a KeyUpdate of its own), as below
            throw refusals.tooManyWithoutData();
        }
        answerEngine(r.getHandshakeStatus());
        return target == dst ? r.bytesProduced() : 0;
    }

    private String peer() {
        return engine.getUseClientMode() ? "origin" : "client";
    }

    private boolean isTls12() {
        return "TLSv1.2".equals(engine.getSession().getProtocol());
    }

    /**
     * A ClientHello on an established TLS 1.2 connection: the client renegotiating, which the gateway refuses, as
     * nginx and HAProxy do (each renegotiation is a full handshake's CPU, asked for at no cost by the client: a known
     * denial of service, and nothing a gateway's clients need). JSSE would accept it unless the JVM-wide
     * {@code jdk.tls.rejectClientInitiatedRenegotiation} was set before its first handshake; refusing here holds
     * whatever ran first. The connection ends with close_notify instead of the engine's answer. (TLS 1.3 has no
     * renegotiation: a handshake message after its handshake is a KeyUpdate or a ticket, answered as usual.) On a
     * connection to an origin (client mode) the same holds for an origin's HelloRequest: Conscrypt's own socket
     * renegotiated as often as the origin asked; here the first request ends the connection (the engine's ClientHello
     * for it goes out with the close_notify), and the exchange is a 502.
     */
    private void refuseRenegotiation() throws SSLException {
        closeOutbound(); // before the engine's delegated task, which would do the handshake's costly part
        throw refusals.refused(new SSLHandshakeException(engine.getUseClientMode()
                ? "TLS renegotiation by the origin refused" : "client-initiated TLS renegotiation refused"));
    }

    /**
     * Reads what the socket has into {@link #netIn}, after the partial record already there; false at the end of
     * the stream. A timeout leaves {@link #netIn} as it was.
     *
     * <p>A read with nothing buffered (the wait for the next request, usually) goes into a recycled record buffer
     * when the pool has one, else into a small array of its own: a request's record (a few hundred bytes) fits and
     * is unwrapped from there, and the connections waiting at once never hold more record buffers than the pool does.
     * A record that does not fit moves into a full-size buffer, one more read for its rest. A client sending in
     * bulk ({@link #bulk}) is read into a bulk buffer instead, eight records at a time.
     */
    private boolean fill() throws IOException {
        // Only when that much is already waiting (the read returns at once): a bulk buffer is never held while the
        // client is silent, so a connection waiting for its next request or frame holds at most a record buffer.
        boolean bulk = this.bulk && socketIn.available() >= BULK_READ;
        ByteBuffer b = netIn;
        if (b == null) {
            byte[] recycled = bulk ? RecordBuffers.takeBulk() : RecordBuffers.takeRecycled();
            b = ByteBuffer.wrap(recycled != null ? recycled : new byte[FIRST_READ]);
        } else {
            b.compact();
            if (!bulk && b.capacity() == RecordBuffers.BULK_SIZE && b.position() < RecordBuffers.SIZE) {
                // The bulk is over (or paused): the partial record (less than a record) goes back to a record
                // buffer, so a client that stops mid-record does not keep a bulk buffer while it is waited for.
                b = moved(b, RecordBuffers.take(RecordBuffers.SIZE));
            } else if (!b.hasRemaining() || bulk && b.capacity() < RecordBuffers.BULK_SIZE) {
                int size = bulk ? RecordBuffers.BULK_SIZE
                        : b.capacity() < RecordBuffers.SIZE ? RecordBuffers.SIZE : packetSize();
                if (size <= b.capacity()) {
                    throw new SSLException("a TLS record larger than " + b.capacity() + " bytes");
                }
                b = moved(b, bulk ? RecordBuffers.takeBulk() : RecordBuffers.take(size));
            }
        }
        int n;
        try {
            n = socketIn.read(b.array(), b.arrayOffset() + b.position(), b.remaining());
        } finally {
            b.flip();
            netIn = b; // what was there stays, whatever the read did
        }
        if (n > 0) {
            b.limit(b.limit() + n);
        }
        this.bulk = n >= BULK_READ;
        return n >= 0;
    }

    /** The bytes of {@code from} (write mode) put into {@code to}, in write mode too; {@code from} is given back. */
    private static ByteBuffer moved(ByteBuffer from, byte[] to) {
        ByteBuffer larger = ByteBuffer.wrap(to);
        from.flip();
        larger.put(from);
        RecordBuffers.give(from.array());
        return larger;
    }

    /** What the engine asks for after a record: its delegated tasks, and the messages it has to send. */
    private void answerEngine(HandshakeStatus hs) throws IOException {
        if (hs == HandshakeStatus.NEED_TASK) {
            runTasks();
            hs = engine.getHandshakeStatus();
        }
        if (hs == HandshakeStatus.NEED_WRAP) {
            writeLock.lock();
            try {
                flushEngineOutput();
            } finally {
                writeLock.unlock();
            }
        }
    }

    /**
     * Wraps and writes what the engine has to say on its own (handshake messages, alerts, close_notify) until it has
     * nothing more. Stops at the first wrap that produces nothing: after the peer's close_notify the engine can
     * keep asking for a wrap it has no record for. Under the write lock.
     */
    private void flushEngineOutput() throws IOException {
        byte[] buffer = RecordBuffers.take(RecordBuffers.SIZE);
        try {
            ByteBuffer out = ByteBuffer.wrap(buffer);
            while (true) {
                out.clear();
                SSLEngineResult r = engine.wrap(NOTHING, out);
                if (r.getStatus() == Status.BUFFER_OVERFLOW) {
                    out = larger(out);
                    continue;
                }
                if (r.bytesProduced() > 0) {
                    out.flip();
                    writeFully(out);
                }
                if (r.getStatus() == Status.CLOSED || engine.isOutboundDone()) {
                    return; // and no delegated task runs for a handshake the close cut short (see refuseRenegotiation)
                }
                HandshakeStatus hs = r.getHandshakeStatus();
                if (hs == HandshakeStatus.NEED_TASK) {
                    runTasks();
                    hs = engine.getHandshakeStatus();
                }
                if (r.bytesProduced() == 0 || hs != HandshakeStatus.NEED_WRAP) {
                    return;
                }
            }
        } finally {
            RecordBuffers.give(buffer);
        }
    }

    /** The engine's alert after a failure, best effort: the connection is being dropped anyway. */
    private void sendAlert() {
        flushUnlessWriting();
    }

    /**
     * What the engine has to say as a connection ends (an alert, close_notify), best effort and only if no other
     * thread is in a write: the end must not wait for it, and the failure or the close says why anyway.
     */
    private void flushUnlessWriting() {
        if (!writeLock.tryLock()) {
            return;
        }
        try {
            flushEngineOutput();
        } catch (IOException | RuntimeException ignored) {
            // the connection is ending; the engine's last words are a courtesy
        } finally {
            writeLock.unlock();
        }
    }

    private void writeFully(ByteBuffer out) throws IOException {
        if (channel == null) { // another transport's socket: a heap buffer (directWrites is off), written as a stream
            socketOut.write(out.array(), out.arrayOffset() + out.position(), out.remaining());
            out.position(out.limit());
            return;
        }
        while (out.hasRemaining()) {
            if (channel.write(out) == 0 && !channel.isBlocking()) {
                throw new IOException("the " + peer() + "'s receive window is full (non-blocking write)");
            }
        }
    }

    private void runTasks() {
        Runnable task;
        while ((task = engine.getDelegatedTask()) != null) {
            task.run();
        }
    }

    private int packetSize() {
        return engine.getSession().getPacketBufferSize();
    }

    /** Room for a record of the session's largest size (JSSE's large-fragment mode), not recycled. */
    private ByteBuffer larger(ByteBuffer out) throws SSLException {
        int size = packetSize();
        if (size <= out.capacity()) {
            throw new SSLException("the engine asks for more than the session's packet size (" + size + " bytes)");
        }
        return ByteBuffer.wrap(new byte[size]);
    }

    /** Gives back the read buffers that hold nothing, so that an idle connection keeps none. */
    private void releaseEmpty() {
        if (netIn != null && !netIn.hasRemaining()) {
            RecordBuffers.give(netIn.array());
            netIn = null;
        }
        if (appIn != null && !appIn.hasRemaining()) {
            // Plaintext: wiped before the buffer goes to another connection (nothing reads it there, but a heap
            // dump would show it).
            Arrays.fill(appIn.array(), 0, appIn.limit(), (byte) 0);
            RecordBuffers.give(appIn.array());
            appIn = null;
        }
    }
}
