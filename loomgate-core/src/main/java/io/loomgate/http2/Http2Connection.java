package io.loomgate.http2;

import io.loomgate.http.Headers;
import io.loomgate.http.HttpLimits;
import io.loomgate.http.RequestHead;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.WatchedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP/2 server connection (RFC 9113): the thread that calls {@link #serve()} reads every frame; each request
 * stream runs its {@link StreamHandler} on a virtual thread of its own.
 *
 * <p>State and threads: reader-only state (the header block being assembled, the HPACK decoder, the last stream id,
 * the rate limits) is plain fields. What stream threads also touch (the stream map, send windows, the peer's
 * settings, the GOAWAY state) is guarded by {@link #lock}, a ReentrantLock that is never held across I/O. Frames are
 * added by whichever thread has one to send to the {@link FrameWriter}'s batch, which one of them writes.
 *
 * <p>Defences (each has a test): Rapid Reset (client resets over a rate → GOAWAY ENHANCE_YOUR_CALM), CONTINUATION
 * flood (a header block is bounded in bytes and frames across CONTINUATIONs), HPACK bomb (decoded list size bounded:
 * 431 for that request), SETTINGS and PING floods (rate → ENHANCE_YOUR_CALM), zero-window stall (a stream waiting
 * for send window longer than the read timeout is reset), stream-id exhaustion (after maxStreamsPerConnection
 * streams, GOAWAY asks for a new connection), MAX_CONCURRENT_STREAMS (more are refused with REFUSED_STREAM).
 *
 * <p>Idle connections ({@link Parking}, h2c only): when no stream is open, no handler runs, nothing is buffered and no
 * GOAWAY was sent or received, a reader that found no frame within the hand-off delay gives the connection to the
 * listener's idle poller and its thread ends ({@link #serve()} returns true); the next bytes resume it on a new
 * thread ({@link #resume}). Everything else (HPACK table, settings, windows, stream ids, the rate limits) stays as it
 * is in this object, so a request after the park decodes against the same table and the floods count on.
 */
public final class Http2Connection {
    private static final Logger log = LoggerFactory.getLogger(Http2Connection.class);
    /** Our receive window for the whole connection; credit returns as soon as DATA is buffered per stream. */
    static final int CONNECTION_WINDOW = 1 << 20;
    /**
     * The most a stream's receive window grows to while its handler keeps up with the upload (see
     * {@link Http2Stream.RequestBody#read}); SETTINGS_INITIAL_WINDOW_SIZE is where it starts.
     */
    static final int MAX_STREAM_WINDOW = 1 << 20;
    /** The most request body still to come that a complete early response waits for rather than resets. */
    static final int EARLY_ANSWER_DRAIN = 64 * 1024;
    /** How long, at most, a complete early response waits for that rest (the read timeout if shorter). */
    static final Duration EARLY_ANSWER_DRAIN_WAIT = Duration.ofSeconds(5);
    /**
     * Window granted beyond SETTINGS_INITIAL_WINDOW_SIZE, summed over a connection's open streams, at most this: a
     * window is a promise to buffer that much, so a connection buffers at most max-concurrent-streams x the initial
     * window plus this (docs/http2.md, "Flow control").
     */
    static final int WINDOW_GROWTH_BUDGET = 1 << 20;
    /** Our HPACK dynamic table size (SETTINGS_HEADER_TABLE_SIZE default). */
    static final int HEADER_TABLE_SIZE = 4096;
    /** CONTINUATION frames allowed in one header block: a real block needs a handful. */
    static final int MAX_CONTINUATIONS = 32;

    /** Returned by {@link #awaitOrPark} when the connection was parked. */
    private static final int PARKED = -2;
    private static final byte[] NOTHING = new byte[0];

    private final long id;
    /** The socket's input and the frame reader's: dropped while parked, made anew on resume. Reader thread only. */
    private WatchedInputStream socketIn;
    private FrameInput in;
    private final FrameWriter writer;
    private final Http2Settings settings;
    private final StreamHandler handler;
    private final int maxHeaderListSize;
    private final int maxHeaderCount;
    private final Duration idleTimeout;
    private final Duration readTimeout;
    private final Runnable endOutput;
    /** How the connection parks while idle; null when it keeps its thread (TLS, platform threads). */
    private final Parking parking;
    private final HpackDecoder decoder = new HpackDecoder(HEADER_TABLE_SIZE);
    /** Made at the first stream reset: most connections never see one. */
    private RateLimit resets;
    private final RateLimit control;
    final ReentrantLock lock = new ReentrantLock();
    private final Condition windowOpened = lock.newCondition();
    // guarded by lock
    /** The shared empty map while no stream is open (see {@link #removeStream}); a HashMap while some are. */
    private Map<Integer, Http2Stream> streams = Map.of();
    private int connSendWindow = Frames.DEFAULT_WINDOW;
    private int peerInitialWindow = Frames.DEFAULT_WINDOW;
    /** Written under lock; volatile so that each response write reads it without the lock. */
    private volatile int peerMaxFrameSize = Frames.DEFAULT_MAX_FRAME_SIZE;
    private boolean goAwaySent;
    private boolean outputEnded;
    private boolean ended;
    /** Stream handlers still running: a handler may write after its stream left the map, so none may be parked. */
    private int handlers;
    // reader thread only
    private volatile int lastStreamId;
    private int streamsOpened;
    private int connRecvWindow = CONNECTION_WINDOW;
    /** Window granted beyond the initial one to the open streams ({@link #growWindow}); guarded by lock. */
    private int windowGrowth;
    private final byte[] head = new byte[Frames.HEADER_LENGTH];
    private int blockStream;
    private byte[] block;
    private int blockLength;
    private boolean blockEndStream;
    private int blockFrames;
    /** Whether the last idle wait ended within the hand-off delay: the next waits untimed (see awaitOrPark). */
    private boolean busy;
    /** Whether the connection was resumed after a park and has not waited since. */
    private boolean afterPark;

    /**
     * How an idle server connection gives up its reader thread: the listener's idle poller (IdleConnections, in the
     * server package). Called on the reader thread only.
     */
    public interface Parking {
        /** How long the reader waits on its thread for the next frame before it looks whether it may park. */
        long handOffNanos();

        /** Bounds the socket's next reads (SO_TIMEOUT) to this many milliseconds; 0 unbounds them. */
        void boundReads(int millis) throws IOException;

        /**
         * Hands the idle connection to the poller, with this much of its idle timeout left: true when the reader's
         * thread is done (parked, or ended by the poller), false when nothing changed (drain began: the reader
         * goes on, under GOAWAY).
         */
        boolean park(long idleLeftNanos) throws IOException;
    }

    /**
     * @param alreadyRead bytes read from the socket before the connection knew it was HTTP/2 (starting with the
     *                    preface)
     * @param endOutput   half-closes the socket's output: the graceful end after GOAWAY, once every stream is done
     */
    public Http2Connection(long id, WatchedInputStream socketIn, byte[] alreadyRead, OutputStream out,
                           Http2Settings settings, HttpLimits limits, Duration idleTimeout,
                           Duration readTimeout, Runnable endOutput, StreamHandler handler) {
        this(id, socketIn, alreadyRead, out, settings, limits, idleTimeout, readTimeout, endOutput, handler, null);
    }

    /** @param parking how the connection parks while idle; null to keep its reader thread throughout */
    public Http2Connection(long id, WatchedInputStream socketIn, byte[] alreadyRead, OutputStream out,
                           Http2Settings settings, HttpLimits limits, Duration idleTimeout,
                           Duration readTimeout, Runnable endOutput, StreamHandler handler, Parking parking) {
        this.id = id;
        this.socketIn = socketIn;
        this.in = new FrameInput(socketIn, alreadyRead);
        this.writer = new FrameWriter(out, true);
        this.settings = settings;
        this.handler = handler;
        this.maxHeaderListSize = limits.maxHeaderBytes();
        this.maxHeaderCount = limits.maxHeaderCount();
        this.idleTimeout = idleTimeout;
        this.readTimeout = readTimeout;
        this.endOutput = endOutput;
        this.parking = parking;
        this.control = new RateLimit(2 * settings.maxControlPerSecond(), settings.maxControlPerSecond());
    }

    /**
     * Reads the preface, then frames until the connection ends or parks. Returns false when it ended (cleanly or
     * with a GOAWAY sent), true when it was handed to the idle poller: the caller's thread is done with it.
     */
    public boolean serve() throws IOException {
        return run(true);
    }

    /**
     * Carries on after a park, on the calling (new) thread, reading from the socket's new input; returns as
     * {@link #serve()}.
     */
    public boolean resume(WatchedInputStream socketIn) throws IOException {
        this.socketIn = socketIn;
        this.in = new FrameInput(socketIn, NOTHING);
        return run(false);
    }

    private boolean run(boolean start) throws IOException {
        boolean parked = false;
        try {
            writer.readerIs(Thread.currentThread());
            if (start) {
                start();
            }
            parked = readFrames();
        } catch (Http2Exception e) {
            log.debug("h2 connection {}: {} {}", id, Frames.errorName(e.code()), e.getMessage());
            endAll("connection error: " + Frames.errorName(e.code()));
            goAway(e.code(), e.getMessage());
            linger();
        } catch (SocketTimeoutException e) {
            log.debug("h2 connection {}: {}", id, e.getMessage());
            goAway(Frames.NO_ERROR, "idle timeout");
        } catch (EOFException e) {
            log.debug("h2 connection {}: client closed", id);
        } finally {
            if (!parked) {
                endAll("connection closed");
                flushOutput(); // frames other threads added to a batch still go out before the caller closes
            }
        }
        return parked;
    }

    /** The preface, and our SETTINGS and connection window. */
    private void start() throws IOException, Http2Exception {
        socketIn.setReadTimeout(readTimeout);
        byte[] preface = new byte[Frames.PREFACE.length];
        readFully(preface, preface.length);
        if (!java.util.Arrays.equals(preface, Frames.PREFACE)) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "invalid connection preface");
        }
        writer.settings(new int[] {
                Frames.SETTINGS_MAX_CONCURRENT_STREAMS, settings.maxConcurrentStreams(),
                Frames.SETTINGS_INITIAL_WINDOW_SIZE, settings.initialWindowSize(),
                Frames.SETTINGS_MAX_HEADER_LIST_SIZE, maxHeaderListSize,
                Frames.SETTINGS_ENABLE_PUSH, 0});
        writer.windowUpdate(0, CONNECTION_WINDOW - Frames.DEFAULT_WINDOW);
    }

    /** One frame at a time until the connection ends (false) or parks (true). */
    private boolean readFrames() throws IOException, Http2Exception {
        while (true) {
            int got = parking != null && !in.holdsBytes() ? awaitOrPark() : awaitFrame();
            if (got == PARKED) {
                return true;
            }
            if (got < 0) {
                return false;
            }
            readFrame(got);
        }
    }

    /**
     * The wait for the next frame of a connection that may park; returns what {@link FrameInput#awaitRead} does,
     * or {@link #PARKED}.
     *
     * <p>As for HTTP/1.1 (ClientConnection.awaitOrPark): a timed wait arms and cancels a JDK timer, so a <em>busy</em>
     * connection, whose previous wait ended within the hand-off delay, waits untimed under the watchdog's idle
     * deadline as before, and learns from how long that took. Every other wait blocks for the hand-off delay at a
     * time (SO_TIMEOUT: a watchdog's expiry would cut the input for good): when it passes with nothing in flight the
     * connection parks, otherwise (a stream still answering) it waits another hand-off delay, up to the idle timeout.
     * The waits of a connection's first stream, and the first after a resumption, say nothing about its use and are
     * not learned from (a client's SETTINGS ACK comes right after its first request). The price: a busy connection
     * that falls silent keeps its thread until its next frame or its idle timeout.
     */
    private int awaitOrPark() throws IOException {
        long start = System.nanoTime();
        long handOff = parking.handOffNanos();
        if (busy || !mayBecomeIdle()) {
            int got = awaitFrame();
            busy = System.nanoTime() - start < handOff;
            return got;
        }
        long idleEnd = start + idleTimeout.toNanos();
        socketIn.setReadTimeout(Duration.ZERO);
        while (true) {
            long left = idleEnd - System.nanoTime();
            if (left <= 0) {
                parking.boundReads(0);
                throw new SocketTimeoutException("idle for " + idleTimeout.toMillis() + " ms");
            }
            parking.boundReads((int) Math.max(1, Math.min(handOff, left) / 1_000_000));
            try {
                int got = in.awaitRead(head, 0, Frames.HEADER_LENGTH);
                parking.boundReads(0);
                busy = streamsOpened > 1 && !afterPark && System.nanoTime() - start < handOff;
                afterPark = false;
                return got;
            } catch (SocketTimeoutException e) {
                // quiet for the hand-off delay: park if nothing is in flight, else wait on
            }
            if (isIdle()) {
                parking.boundReads(0);
                if (park(idleEnd - System.nanoTime())) {
                    return PARKED;
                }
                if (!mayBecomeIdle()) {
                    return awaitFrame(); // drain began meanwhile: GOAWAY is sent, the client finishes
                }
            }
        }
    }

    /** Whether no GOAWAY was sent or received: a connection that is ending never parks. */
    private boolean mayBecomeIdle() {
        lock.lock();
        try {
            return !goAwaySent;
        } finally {
            lock.unlock();
        }
    }

    /** Whether nothing is in flight: no stream, no handler, no header block, no GOAWAY. Reader thread. */
    private boolean isIdle() {
        if (block != null || in.holdsBytes()) {
            return false;
        }
        lock.lock();
        try {
            return streams.isEmpty() && handlers == 0 && !goAwaySent;
        } finally {
            lock.unlock();
        }
    }

    /** Drops the input and hands the connection over; restores the input if it was not taken. */
    private boolean park(long idleLeftNanos) throws IOException {
        FrameInput keptIn = in;
        WatchedInputStream keptSocketIn = socketIn;
        in = null;
        socketIn = null;
        afterPark = true;
        busy = false;
        writer.readerIs(null); // the ended thread would stay reachable from the writer (its object and name: ~250 B)
        // Once handed over, the poller may resume the connection on a new thread at once: nothing after this.
        if (parking.park(idleLeftNanos)) {
            return true;
        }
        writer.readerIs(Thread.currentThread());
        in = keptIn;
        socketIn = keptSocketIn;
        afterPark = false;
        return false;
    }

    /**
     * The GOAWAY (NO_ERROR) that ends a parked connection (its idle timeout, drain), as bytes for the poller to write
     * without blocking; no stream was opened after {@link #lastStreamId}, and none will be.
     */
    public byte[] goAwayWhileParked(String why) {
        lock.lock();
        try {
            goAwaySent = true;
        } finally {
            lock.unlock();
        }
        java.io.ByteArrayOutputStream frame = new java.io.ByteArrayOutputStream(64);
        try {
            new FrameWriter(frame).goAway(lastStreamId, Frames.NO_ERROR, why);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e); // a ByteArrayOutputStream does not fail
        }
        return frame.toByteArray();
    }

    /** Writes the frames gathered for the next batch now; the output is about to be half-closed or closed. */
    private void flushOutput() {
        try {
            writer.flush();
        } catch (IOException e) {
            log.debug("h2 connection {}: final flush failed: {}", id, e.toString());
        }
    }

    /** Starts a graceful end (drain): GOAWAY now, streams in flight finish, then the connection closes. */
    public void drain() {
        boolean sendNow;
        lock.lock();
        try {
            sendNow = !goAwaySent;
            goAwaySent = true;
        } finally {
            lock.unlock();
        }
        if (sendNow) {
            try {
                writer.goAway(lastStreamId, Frames.NO_ERROR, "server shutting down");
            } catch (IOException e) {
                log.debug("h2 connection {}: GOAWAY failed: {}", id, e.toString());
            }
        }
        endOutputIfDone();
    }

    private boolean outputEnded() {
        lock.lock();
        try {
            return outputEnded;
        } finally {
            lock.unlock();
        }
    }

    /** Streams open now. */
    public int activeStreams() {
        lock.lock();
        try {
            return streams.size();
        } finally {
            lock.unlock();
        }
    }

    private void goAway(int code, String why) {
        lock.lock();
        try {
            goAwaySent = true;
        } finally {
            lock.unlock();
        }
        try {
            writer.goAway(lastStreamId, code, why);
        } catch (IOException e) {
            log.debug("h2 connection {}: GOAWAY failed: {}", id, e.toString());
        }
    }

    /**
     * After a GOAWAY for an error: half-close and read what the client still sends for a moment, so that closing the
     * socket with unread input (which makes the kernel send RST and drop what is unsent) does not swallow the GOAWAY.
     */
    private void linger() {
        flushOutput();
        endOutput.run();
        socketIn.setReadTimeout(Duration.ofSeconds(1));
        byte[] sink = new byte[8192];
        long budget = 1 << 20;
        try {
            int n;
            while (budget > 0 && (n = in.read(sink, 0, sink.length)) >= 0) {
                budget -= n;
            }
        } catch (IOException e) {
            // timed out or reset: the client had its chance to read the GOAWAY
        }
    }

    /** The connection is over: every stream still open is reset so its thread stops waiting. */
    private void endAll(String why) {
        List<Http2Stream> left;
        List<Runnable> cancels = new ArrayList<>();
        lock.lock();
        try {
            ended = true;
            left = new ArrayList<>(streams.values());
            streams = Map.of();
            for (Http2Stream s : left) {
                s.markReset(why);
                if (s.onCancel != null) {
                    cancels.add(s.onCancel);
                }
            }
            windowOpened.signalAll();
        } finally {
            lock.unlock();
        }
        // The client is gone: what its streams' handlers still wait for upstream is cancelled.
        cancels.forEach(c -> cancelHandler(c, null));
    }

    /**
     * Answers a client on a prior-knowledge port whose first line is neither an HTTP/1.x request nor the HTTP/2
     * preface: RFC 9113 §3.4 makes an invalid preface a connection error, so it gets GOAWAY PROTOCOL_ERROR.
     */
    public static void refusePreface(OutputStream out) throws IOException {
        new FrameWriter(out).goAway(0, Frames.PROTOCOL_ERROR, "invalid connection preface");
    }

    // ---------------------------------------------------------------- reading

    private void readFully(byte[] b, int len) throws IOException {
        int off = 0;
        while (off < len) {
            int n = in.read(b, off, len - off);
            if (n < 0) {
                throw new EOFException("connection closed");
            }
            off += n;
        }
    }

    /** Waits for the first bytes of the next frame: what {@link FrameInput#awaitRead} returns (-1 at the end). */
    private int awaitFrame() throws IOException {
        // Between frames the idle timeout applies; once GOAWAY was sent and every stream is done (output half-closed)
        // the client only has to notice and close, so it gets a short while.
        socketIn.setReadTimeout(outputEnded() ? Duration.ofSeconds(2) : idleTimeout);
        return in.awaitRead(head, 0, Frames.HEADER_LENGTH);
    }

    /** Reads and handles the frame whose first {@code got} bytes are in {@link #head}. */
    private void readFrame(int got) throws IOException, Http2Exception {
        socketIn.setReadTimeout(readTimeout);
        readFully9(got);
        int length = ((head[0] & 0xff) << 16) | ((head[1] & 0xff) << 8) | (head[2] & 0xff);
        int type = head[3] & 0xff;
        int flags = head[4] & 0xff;
        int stream = (((head[5] & 0x7f) << 24) | ((head[6] & 0xff) << 16) | ((head[7] & 0xff) << 8)
                | (head[8] & 0xff));
        if (length > Frames.DEFAULT_MAX_FRAME_SIZE) {
            throw Http2Exception.connection(Frames.FRAME_SIZE_ERROR, "frame of " + length
                    + " bytes over SETTINGS_MAX_FRAME_SIZE");
        }
        byte[] payload = new byte[length];
        readFully(payload, length);
        if (block != null && type != Frames.CONTINUATION) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "header block interrupted by frame type "
                    + type + " (RFC 9113 §6.10)");
        }
        try {
            switch (type) {
                case Frames.DATA -> onData(stream, flags, payload);
                case Frames.HEADERS -> onHeaders(stream, flags, payload);
                case Frames.PRIORITY -> onPriority(stream, payload);
                case Frames.RST_STREAM -> onRstStream(stream, payload);
                case Frames.SETTINGS -> onSettings(stream, flags, payload);
                case Frames.PUSH_PROMISE -> throw Http2Exception.connection(Frames.PROTOCOL_ERROR,
                        "PUSH_PROMISE from a client (RFC 9113 §8.4)");
                case Frames.PING -> onPing(stream, flags, payload);
                case Frames.GOAWAY -> onGoAway(stream);
                case Frames.WINDOW_UPDATE -> onWindowUpdate(stream, payload);
                case Frames.CONTINUATION -> onContinuation(stream, flags, payload);
                default -> {
                    // unknown frame types are ignored (RFC 9113 §5.5)
                }
            }
        } catch (Http2Exception e) {
            if (e.isConnectionError()) {
                throw e;
            }
            log.debug("h2 connection {} stream {}: {} {}", id, e.streamId(), Frames.errorName(e.code()),
                    e.getMessage());
            resetFromReader(e.streamId(), e.code(), e.getMessage());
        }
    }

    private void readFully9(int already) throws IOException {
        int off = already;
        while (off < Frames.HEADER_LENGTH) {
            int n = in.read(head, off, Frames.HEADER_LENGTH - off);
            if (n < 0) {
                throw new EOFException("connection closed inside a frame header");
            }
            off += n;
        }
    }

    /** Whether a client stream id was never opened (RFC 9113 §5.1: idle). */
    private boolean isIdle(int stream) {
        return stream > lastStreamId;
    }

    private void onData(int stream, int flags, byte[] payload) throws Http2Exception, IOException {
        if (stream == 0) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "DATA on stream 0");
        }
        if (isIdle(stream)) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "DATA on idle stream " + stream);
        }
        int padding = padding(flags, payload);
        // Connection flow control counts the whole frame, padding included (RFC 9113 §6.9.1).
        connRecvWindow -= payload.length;
        if (connRecvWindow < 0) {
            throw Http2Exception.connection(Frames.FLOW_CONTROL_ERROR, "DATA beyond the connection window");
        }
        // The connection window reopens at once: each stream's own window bounds what is buffered.
        if (connRecvWindow <= CONNECTION_WINDOW / 2) {
            writer.windowUpdate(0, CONNECTION_WINDOW - connRecvWindow);
            connRecvWindow = CONNECTION_WINDOW;
        }
        boolean endStream = (flags & Frames.FLAG_END_STREAM) != 0;
        int dataOff = (flags & Frames.FLAG_PADDED) != 0 ? 1 : 0;
        int dataLen = payload.length - dataOff - padding;
        int paddingCredit;
        lock.lock();
        try {
            Http2Stream s = streams.get(stream);
            if (s == null || s.remoteClosed || s.isReset()) {
                throw Http2Exception.stream(stream, Frames.STREAM_CLOSED, "DATA on closed stream " + stream);
            }
            if (payload.length > s.recvWindow) {
                throw Http2Exception.stream(stream, Frames.FLOW_CONTROL_ERROR, "DATA beyond the stream window");
            }
            s.recvWindow -= payload.length;
            if (!s.deliverData(payload, dataOff, dataLen, endStream)) {
                throw Http2Exception.stream(stream, Frames.PROTOCOL_ERROR,
                        "DATA does not match content-length (RFC 9113 §8.1.1)");
            }
            // Padding is never read by the handler: give its window back now.
            paddingCredit = endStream ? 0 : payload.length - dataLen;
            s.recvWindow += paddingCredit;
            if (endStream) {
                closeIfDone(s);
            }
        } finally {
            lock.unlock();
        }
        if (paddingCredit > 0) {
            writer.windowUpdate(stream, paddingCredit);
        }
    }

    private static int padding(int flags, byte[] payload) throws Http2Exception {
        if ((flags & Frames.FLAG_PADDED) == 0) {
            return 0;
        }
        if (payload.length < 1) {
            throw Http2Exception.connection(Frames.FRAME_SIZE_ERROR, "padded frame without a pad length");
        }
        int pad = payload[0] & 0xff;
        if (pad >= payload.length) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "padding as long as the frame (RFC 9113 §6.1)");
        }
        return pad;
    }

    private void onHeaders(int stream, int flags, byte[] payload) throws Http2Exception, IOException {
        if (stream == 0) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "HEADERS on stream 0");
        }
        int padding = padding(flags, payload);
        int off = (flags & Frames.FLAG_PADDED) != 0 ? 1 : 0;
        if ((flags & Frames.FLAG_PRIORITY) != 0) {
            if (payload.length - off - padding < 5) {
                throw Http2Exception.connection(Frames.FRAME_SIZE_ERROR, "HEADERS too short for its priority");
            }
            int dependency = ((payload[off] & 0x7f) << 24) | ((payload[off + 1] & 0xff) << 16)
                    | ((payload[off + 2] & 0xff) << 8) | (payload[off + 3] & 0xff);
            off += 5;
            if (dependency == stream) {
                // Decode the block anyway, below, to keep HPACK in step; then refuse the stream.
                startBlock(stream, flags, payload, off, payload.length - off - padding);
                blockDependsOnItself = true;
                if ((flags & Frames.FLAG_END_HEADERS) != 0) {
                    endBlock();
                }
                return;
            }
        }
        startBlock(stream, flags, payload, off, payload.length - off - padding);
        if ((flags & Frames.FLAG_END_HEADERS) != 0) {
            endBlock();
        }
    }

    private boolean blockDependsOnItself;

    private void startBlock(int stream, int flags, byte[] payload, int off, int len) throws Http2Exception {
        if (len > maxHeaderBlock()) {
            throw Http2Exception.connection(Frames.ENHANCE_YOUR_CALM, "header block over " + maxHeaderBlock()
                    + " bytes");
        }
        blockStream = stream;
        block = java.util.Arrays.copyOfRange(payload, off, off + len);
        blockLength = len;
        blockEndStream = (flags & Frames.FLAG_END_STREAM) != 0;
        blockFrames = 1;
    }

    /** A compressed block may not exceed the decoded limit by more than a little: HPACK only ever shrinks. */
    private int maxHeaderBlock() {
        return maxHeaderListSize + 1024;
    }

    private void onContinuation(int stream, int flags, byte[] payload) throws Http2Exception, IOException {
        if (block == null) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "CONTINUATION without a header block before it"
                    + " (RFC 9113 §6.10)");
        }
        if (stream != blockStream) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "CONTINUATION on stream " + stream
                    + " inside a block of stream " + blockStream);
        }
        // CONTINUATION flood (CVE-2024-27316 class): bounded in bytes and in frames, empty ones included.
        if (++blockFrames > MAX_CONTINUATIONS || blockLength + payload.length > maxHeaderBlock()) {
            block = null;
            throw Http2Exception.connection(Frames.ENHANCE_YOUR_CALM, "header block over " + maxHeaderBlock()
                    + " bytes or " + MAX_CONTINUATIONS + " frames");
        }
        if (blockLength + payload.length > block.length) {
            block = java.util.Arrays.copyOf(block, Math.max(block.length * 2, blockLength + payload.length));
        }
        System.arraycopy(payload, 0, block, blockLength, payload.length);
        blockLength += payload.length;
        if ((flags & Frames.FLAG_END_HEADERS) != 0) {
            endBlock();
        }
    }

    /** A whole header block has arrived: decode it, then open a stream or end one with trailers. */
    private void endBlock() throws Http2Exception, IOException {
        int stream = blockStream;
        byte[] b = block;
        int len = blockLength;
        boolean endStream = blockEndStream;
        boolean selfDependent = blockDependsOnItself;
        block = null;
        blockDependsOnItself = false;
        Http2Stream existing;
        lock.lock();
        try {
            existing = streams.get(stream);
        } finally {
            lock.unlock();
        }
        boolean isTrailers = existing != null || !isIdle(stream);
        RequestFields fields = new RequestFields(isTrailers);
        boolean withinLimit;
        try {
            withinLimit = decoder.decode(b, len, maxHeaderListSize, fields);
        } catch (HpackException e) {
            throw Http2Exception.connection(Frames.COMPRESSION_ERROR, e.getMessage());
        }
        if (isTrailers) {
            if (existing == null || existing.remoteClosed || existing.isReset()) {
                // The client ended this stream (or it is gone): HEADERS now would reopen it. A connection error
                // (RFC 9113 §5.4.1 allows it for a stream error too) whether or not our response has quite ended.
                throw Http2Exception.connection(Frames.STREAM_CLOSED, "HEADERS on closed stream " + stream);
            }
            if (!endStream) {
                throw Http2Exception.stream(stream, Frames.PROTOCOL_ERROR,
                        "trailers without END_STREAM (RFC 9113 §8.1)");
            }
            Headers trailers = fields.toTrailers(stream);
            if (!withinLimit) {
                throw Http2Exception.stream(stream, Frames.PROTOCOL_ERROR, "trailers over the header list limit");
            }
            lock.lock();
            try {
                existing.deliverTrailers(trailers);
                closeIfDone(existing);
            } finally {
                lock.unlock();
            }
            return;
        }
        if ((stream & 1) == 0) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "even stream id " + stream + " from a client");
        }
        lastStreamId = stream;
        streamsOpened++;
        if (selfDependent) {
            throw Http2Exception.stream(stream, Frames.PROTOCOL_ERROR, "stream depends on itself (RFC 9113 §5.3.1)");
        }
        RequestHead request = fields.toRequest(stream);
        boolean refuse;
        boolean last = streamsOpened >= settings.maxStreamsPerConnection();
        lock.lock();
        try {
            refuse = goAwaySent || streams.size() >= settings.maxConcurrentStreams();
        } finally {
            lock.unlock();
        }
        if (refuse) {
            throw Http2Exception.stream(stream, Frames.REFUSED_STREAM, "over SETTINGS_MAX_CONCURRENT_STREAMS or"
                    + " after GOAWAY");
        }
        long contentLength = contentLength(stream, request.headers());
        if (endStream && contentLength > 0) {
            throw Http2Exception.stream(stream, Frames.PROTOCOL_ERROR, "content-length without DATA");
        }
        Http2Stream s = new Http2Stream(this, stream, streamsOpened - 1, request, contentLength, endStream,
                settings.initialWindowSize(), 0);
        lock.lock();
        try {
            s.sendWindow = peerInitialWindow;
            if (streams.isEmpty()) {
                streams = new HashMap<>(); // the shared empty map cannot take it
            }
            streams.put(stream, s);
            handlers++; // every stream put here gets a handler thread below (runStream or refuseWith431)
        } finally {
            lock.unlock();
        }
        if (!withinLimit || request.headers().size() > maxHeaderCount) {
            // HPACK bomb or simply too many fields: the table is in step, so only this request is refused.
            refuseWith431(s);
        } else {
            s.thread = ConnectionExecutors.startVirtual("h2-" + id + "-" + stream, () -> runStream(s));
        }
        if (last) {
            // Stream-id exhaustion: a long-lived connection is asked to make way for a new one.
            drain();
        }
    }

    private static long contentLength(int stream, Headers h) throws Http2Exception {
        String cl = null;
        for (int i = h.indexOf("content-length", 0); i >= 0; i = h.indexOf("content-length", i + 1)) {
            String v = h.value(i);
            if (cl != null && !cl.equals(v)) {
                throw Http2Exception.stream(stream, Frames.PROTOCOL_ERROR, "differing content-length values");
            }
            cl = v;
        }
        if (cl == null) {
            return -1;
        }
        try {
            if (cl.isEmpty() || cl.length() > 18 || !cl.chars().allMatch(Character::isDigit)) {
                throw new NumberFormatException();
            }
            return Long.parseLong(cl);
        } catch (NumberFormatException e) {
            throw Http2Exception.stream(stream, Frames.PROTOCOL_ERROR, "invalid content-length");
        }
    }

    private void refuseWith431(Http2Stream s) {
        ConnectionExecutors.startVirtual("h2-" + id + "-" + s.id(), () -> {
            try {
                byte[] body = "request header fields too large\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);
                io.loomgate.http.ResponseHead h = io.loomgate.http.ResponseHead.of(431);
                h.headers().add("content-type", "text/plain; charset=utf-8");
                h.headers().add("content-length", Integer.toString(body.length));
                Http2Stream.ResponseOut out = s.sendHead(h, false);
                out.write(body);
                out.finish(null);
            } catch (IOException e) {
                log.debug("h2 connection {} stream {}: 431 not sent: {}", id, s.id(), e.toString());
            } finally {
                afterHandler(s);
            }
        });
    }

    private void runStream(Http2Stream s) {
        try {
            handler.handle(s);
        } catch (IOException | RuntimeException e) {
            log.debug("h2 connection {} stream {}: handler ended with {}", id, s.id(), e.toString());
        } finally {
            afterHandler(s);
        }
    }

    /** A handler that returned without finishing its response leaves a stream that can only be reset. */
    private void afterHandler(Http2Stream s) {
        boolean unfinished;
        lock.lock();
        try {
            unfinished = !s.localClosed;
            s.thread = null;
        } finally {
            lock.unlock();
        }
        if (unfinished) {
            resetLocally(s, Frames.INTERNAL_ERROR, "handler returned without finishing the response");
        }
        Thread.interrupted(); // a client reset may have interrupted this thread after the handler was done
        lock.lock();
        try {
            handlers--; // after its last write: the connection may park from now on
        } finally {
            lock.unlock();
        }
    }

    private void onPriority(int stream, byte[] payload) throws Http2Exception {
        if (stream == 0) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "PRIORITY on stream 0");
        }
        if (payload.length != 5) {
            throw Http2Exception.stream(stream, Frames.FRAME_SIZE_ERROR, "PRIORITY of " + payload.length + " bytes");
        }
        int dependency = ((payload[0] & 0x7f) << 24) | ((payload[1] & 0xff) << 16) | ((payload[2] & 0xff) << 8)
                | (payload[3] & 0xff);
        if (dependency == stream) {
            throw Http2Exception.stream(stream, Frames.PROTOCOL_ERROR, "stream depends on itself (RFC 9113 §5.3.1)");
        }
        // Priorities are accepted and ignored (RFC 9113 §5.3.2 deprecates the scheme).
    }

    private void onRstStream(int stream, byte[] payload) throws Http2Exception {
        if (stream == 0) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "RST_STREAM on stream 0");
        }
        if (payload.length != 4) {
            throw Http2Exception.connection(Frames.FRAME_SIZE_ERROR, "RST_STREAM of " + payload.length + " bytes");
        }
        if (isIdle(stream)) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "RST_STREAM on idle stream " + stream);
        }
        Http2Stream s;
        Thread handler = null;
        Runnable cancel = null;
        lock.lock();
        try {
            s = removeStream(stream);
            if (s != null) {
                s.markReset("reset by the client");
                cancel = s.onCancel;
                handler = cancel == null ? s.thread : null;
                windowOpened.signalAll();
            }
        } finally {
            lock.unlock();
        }
        cancelHandler(cancel, handler);
        if (s != null && resets == null) {
            resets = new RateLimit(2 * settings.maxResetsPerSecond(), settings.maxResetsPerSecond());
        }
        if (s != null && !resets.tryAcquire()) {
            // Rapid Reset (CVE-2023-44487): streams opened and cancelled faster than any real client does.
            throw Http2Exception.connection(Frames.ENHANCE_YOUR_CALM, "too many stream resets");
        }
        endOutputIfDone();
    }

    private void onSettings(int stream, int flags, byte[] payload) throws Http2Exception, IOException {
        if (stream != 0) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "SETTINGS on stream " + stream);
        }
        if ((flags & Frames.FLAG_ACK) != 0) {
            if (payload.length != 0) {
                throw Http2Exception.connection(Frames.FRAME_SIZE_ERROR, "SETTINGS ACK with a payload");
            }
            return;
        }
        if (payload.length % 6 != 0) {
            throw Http2Exception.connection(Frames.FRAME_SIZE_ERROR, "SETTINGS of " + payload.length + " bytes");
        }
        if (!control.tryAcquire()) {
            throw Http2Exception.connection(Frames.ENHANCE_YOUR_CALM, "SETTINGS flood");
        }
        writer.applyAndAcknowledge(() -> applySettings(payload));
    }

    /** The peer's SETTINGS values in order (RFC 9113 §6.5.3), under the writer's lock: see FrameWriter. */
    private void applySettings(byte[] payload) throws Http2Exception {
        for (int i = 0; i < payload.length; i += 6) {
            int key = ((payload[i] & 0xff) << 8) | (payload[i + 1] & 0xff);
            long value = ((payload[i + 2] & 0xffL) << 24) | ((payload[i + 3] & 0xff) << 16)
                    | ((payload[i + 4] & 0xff) << 8) | (payload[i + 5] & 0xff);
            switch (key) {
                case Frames.SETTINGS_ENABLE_PUSH -> {
                    if (value > 1) {
                        throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "SETTINGS_ENABLE_PUSH of " + value);
                    }
                }
                case Frames.SETTINGS_INITIAL_WINDOW_SIZE -> {
                    if (value > Frames.MAX_WINDOW) {
                        throw Http2Exception.connection(Frames.FLOW_CONTROL_ERROR,
                                "SETTINGS_INITIAL_WINDOW_SIZE over 2^31-1");
                    }
                    changeInitialWindow((int) value);
                }
                case Frames.SETTINGS_MAX_FRAME_SIZE -> {
                    if (value < Frames.DEFAULT_MAX_FRAME_SIZE || value > 0xffffff) {
                        throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "SETTINGS_MAX_FRAME_SIZE of " + value);
                    }
                    lock.lock();
                    try {
                        peerMaxFrameSize = (int) value;
                    } finally {
                        lock.unlock();
                    }
                }
                default -> {
                    // HEADER_TABLE_SIZE: our encoder uses no dynamic table; the rest are advisory or unknown.
                }
            }
        }
    }

    private void changeInitialWindow(int value) throws Http2Exception {
        lock.lock();
        try {
            int delta = value - peerInitialWindow;
            for (Http2Stream s : streams.values()) {
                long w = (long) s.sendWindow + delta;
                if (w > Frames.MAX_WINDOW) {
                    throw Http2Exception.connection(Frames.FLOW_CONTROL_ERROR,
                            "SETTINGS_INITIAL_WINDOW_SIZE makes a stream window over 2^31-1");
                }
            }
            for (Http2Stream s : streams.values()) {
                s.sendWindow += delta;
            }
            peerInitialWindow = value;
            windowOpened.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void onPing(int stream, int flags, byte[] payload) throws Http2Exception, IOException {
        if (stream != 0) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "PING on stream " + stream);
        }
        if (payload.length != 8) {
            throw Http2Exception.connection(Frames.FRAME_SIZE_ERROR, "PING of " + payload.length + " bytes");
        }
        if ((flags & Frames.FLAG_ACK) != 0) {
            return;
        }
        if (!control.tryAcquire()) {
            throw Http2Exception.connection(Frames.ENHANCE_YOUR_CALM, "PING flood");
        }
        writer.pingAck(payload);
    }

    private void onGoAway(int stream) throws Http2Exception {
        if (stream != 0) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "GOAWAY on stream " + stream);
        }
        // The client opens no more streams; those in flight finish, then the connection closes.
        lock.lock();
        try {
            goAwaySent = true;
        } finally {
            lock.unlock();
        }
        endOutputIfDone();
    }

    private void onWindowUpdate(int stream, byte[] payload) throws Http2Exception {
        if (payload.length != 4) {
            throw Http2Exception.connection(Frames.FRAME_SIZE_ERROR, "WINDOW_UPDATE of " + payload.length + " bytes");
        }
        int increment = ((payload[0] & 0x7f) << 24) | ((payload[1] & 0xff) << 16) | ((payload[2] & 0xff) << 8)
                | (payload[3] & 0xff);
        if (stream == 0) {
            if (increment == 0) {
                throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "WINDOW_UPDATE of 0");
            }
            lock.lock();
            try {
                if ((long) connSendWindow + increment > Frames.MAX_WINDOW) {
                    throw Http2Exception.connection(Frames.FLOW_CONTROL_ERROR, "connection window over 2^31-1");
                }
                connSendWindow += increment;
                windowOpened.signalAll();
            } finally {
                lock.unlock();
            }
            return;
        }
        if (isIdle(stream)) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "WINDOW_UPDATE on idle stream " + stream);
        }
        if (increment == 0) {
            throw Http2Exception.stream(stream, Frames.PROTOCOL_ERROR, "WINDOW_UPDATE of 0");
        }
        lock.lock();
        try {
            Http2Stream s = streams.get(stream);
            if (s == null) {
                return; // a stream that has just closed: frames in flight are expected (RFC 9113 §6.9)
            }
            if ((long) s.sendWindow + increment > Frames.MAX_WINDOW) {
                throw Http2Exception.stream(stream, Frames.FLOW_CONTROL_ERROR, "stream window over 2^31-1");
            }
            s.sendWindow += increment;
            windowOpened.signalAll();
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- writing, from stream threads

    long readTimeoutNanos() {
        return readTimeout.toNanos();
    }

    int streamWindow() {
        return settings.initialWindowSize();
    }

    /**
     * Under the lock: how much larger a stream's window of {@code current} bytes may become now: doubled, up to
     * {@link #MAX_STREAM_WINDOW}, while the connection's {@link #WINDOW_GROWTH_BUDGET} lasts (0 once it is spent).
     * The stream gives the growth back when it leaves ({@link #removeStream}).
     */
    int growWindow(int current) {
        int extra = Math.min(Math.min(current, MAX_STREAM_WINDOW - current), WINDOW_GROWTH_BUDGET - windowGrowth);
        if (extra <= 0) {
            return 0;
        }
        windowGrowth += extra;
        return extra;
    }

    int peerMaxFrameSize() {
        // No lock: every ResponseOut.write asks, and the lock is contended by all of the connection's streams
        return peerMaxFrameSize;
    }

    void sendWindowUpdate(int stream, int credit) throws IOException {
        writer.windowUpdate(stream, credit);
    }

    void writeHeaders(Http2Stream s, HeaderBlock block, boolean endStream) throws IOException {
        flushPendingHead(s);
        int frameSize;
        lock.lock();
        try {
            checkWritable(s);
            frameSize = peerMaxFrameSize;
            if (endStream) {
                s.localClosed = true;
            }
        } finally {
            lock.unlock();
        }
        writer.headers(s.id(), block.array(), block.length(), frameSize, endStream);
        if (endStream) {
            afterLocalEnd(s);
        }
    }

    /** Writes a response head held back by {@link Http2Stream#sendHead}, alone. */
    private void flushPendingHead(Http2Stream s) throws IOException {
        HeaderBlock head = s.pendingHead;
        if (head != null) {
            s.pendingHead = null;
            writeHeaders(s, head, false);
        }
    }

    /** Sends DATA as the stream and connection windows allow, waiting (up to the read timeout) for window. */
    void writeData(Http2Stream s, byte[] b, int off, int len, boolean endStream) throws IOException {
        HeaderBlock head = s.pendingHead;
        if (head != null) {
            boolean together;
            lock.lock();
            try {
                // Together only when the head fits one frame and the first DATA can go at once; a shut window must
                // not hold the head back.
                together = head.length() <= peerMaxFrameSize && (len == 0 || s.sendWindow > 0 && connSendWindow > 0);
            } finally {
                lock.unlock();
            }
            if (!together) {
                flushPendingHead(s);
            }
        }
        do {
            int n;
            lock.lock();
            try {
                long deadline = System.nanoTime() + readTimeout.toNanos();
                while (true) {
                    checkWritable(s);
                    if (len == 0 || s.sendWindow > 0 && connSendWindow > 0) {
                        break;
                    }
                    if (s.pendingHead != null) {
                        // Another stream took the connection window meanwhile: the head goes out alone first.
                        lock.unlock();
                        try {
                            flushPendingHead(s);
                        } finally {
                            lock.lock();
                        }
                        continue;
                    }
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        // Zero-window stall: the client keeps the window shut; the stream cannot finish.
                        lock.unlock();
                        try {
                            resetLocally(s, Frames.CANCEL, "flow-control window stayed 0");
                        } finally {
                            lock.lock();
                        }
                        throw new SocketTimeoutException("stream " + s.id() + ": client kept the flow-control window"
                                + " shut for the read timeout");
                    }
                    try {
                        windowOpened.awaitNanos(left);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new InterruptedIOException("stream " + s.id() + " interrupted");
                    }
                }
                n = Math.min(len, Math.min(peerMaxFrameSize, Math.min(s.sendWindow, connSendWindow)));
                s.sendWindow -= n;
                connSendWindow -= n;
                if (endStream && n == len) {
                    s.localClosed = true;
                }
            } finally {
                lock.unlock();
            }
            boolean last = endStream && n == len;
            HeaderBlock pending = s.pendingHead;
            if (pending != null) {
                s.pendingHead = null;
                writer.headersAndData(s.id(), pending.array(), pending.length(), b, off, n, last);
            } else {
                writer.data(s.id(), b, off, n, last);
            }
            off += n;
            len -= n;
            if (last) {
                afterLocalEnd(s);
                return;
            }
        } while (len > 0);
    }

    private void checkWritable(Http2Stream s) throws IOException {
        if (s.isReset()) {
            throw new IOException("stream " + s.id() + ": " + s.resetWhy());
        }
        if (s.localClosed) {
            throw new IOException("stream " + s.id() + " already ended");
        }
        if (ended) {
            throw new IOException("connection closed");
        }
    }

    /**
     * Our side of the stream has ended. A client still sending a body it no longer needs to is told to stop
     * (RST_STREAM NO_ERROR, RFC 9113 §8.1).
     */
    private void afterLocalEnd(Http2Stream s) {
        acceptSmallRest(s);
        boolean stopClient;
        lock.lock();
        try {
            stopClient = !s.remoteClosed && !s.isReset() && streams.get(s.id()) == s;
            if (stopClient) {
                s.markReset("response complete");
            }
            if (stopClient || s.remoteClosed) {
                removeStream(s.id());
            }
        } finally {
            lock.unlock();
        }
        if (stopClient) {
            try {
                writer.rstStream(s.id(), Frames.NO_ERROR);
            } catch (IOException e) {
                log.debug("h2 connection {}: RST_STREAM failed: {}", id, e.toString());
            }
        }
        endOutputIfDone();
    }

    /**
     * The response is complete while the request body is still coming: when what is left of it is small (its
     * content-length says at most {@link #EARLY_ANSWER_DRAIN} bytes more), the stream's thread grants the window for
     * it and waits, at most {@link #EARLY_ANSWER_DRAIN_WAIT}, for the client to end the stream; the bytes are dropped
     * with the stream. Otherwise, or when the client does not end it in time, RST_STREAM NO_ERROR follows as before
     * (RFC 9113 §8.1 allows either). Why: curl 7.88 fails an upload (exit 92) that is reset while it waits for window,
     * even after a complete response; a small remainder is cheaper to take than to refuse. Only on the stream's own
     * thread (never the reader's, which delivers the DATA waited for).
     */
    private void acceptSmallRest(Http2Stream s) {
        int grant;
        lock.lock();
        try {
            long rest = s.unreceived();
            if (Thread.currentThread() != s.thread || s.remoteClosed || s.isReset() || rest < 0
                    || rest > EARLY_ANSWER_DRAIN || streams.get(s.id()) != s) {
                return;
            }
            grant = (int) Math.max(0, rest - s.recvWindow);
            s.recvWindow += grant;
        } finally {
            lock.unlock();
        }
        try {
            if (grant > 0) {
                writer.windowUpdate(s.id(), grant);
            }
        } catch (IOException e) {
            return;
        }
        long deadline = System.nanoTime() + Math.min(readTimeout.toNanos(), EARLY_ANSWER_DRAIN_WAIT.toNanos());
        lock.lock();
        try {
            while (!s.remoteClosed && !s.isReset()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                s.changed().awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Under the lock: removes a stream. A HashMap keeps its table when emptied, so once the last stream leaves the map
     * is dropped for the shared empty one: an idle connection holds no map (48 bytes) and no table (80 bytes); the
     * next stream makes a new one.
     */
    private Http2Stream removeStream(int stream) {
        if (streams.isEmpty()) {
            return null; // the shared empty map refuses remove
        }
        Http2Stream s = streams.remove(stream);
        if (s != null) {
            windowGrowth -= s.windowGrowth();
        }
        if (s != null && streams.isEmpty()) {
            streams = Map.of();
        }
        return s;
    }

    /** Under the lock: a stream both sides have ended leaves the map. */
    private void closeIfDone(Http2Stream s) {
        if (s.localClosed && s.remoteClosed) {
            removeStream(s.id());
        }
    }

    /** Resets a stream from its own thread (or the reader): RST_STREAM, unless it already ended. */
    void resetLocally(Http2Stream s, int code, String why) {
        resetLocally(s, code, why, false);
    }

    /** With {@code always}, RST_STREAM goes out even if our side had ended: the reader found a stream error. */
    private void resetLocally(Http2Stream s, int code, String why, boolean always) {
        boolean send;
        lock.lock();
        try {
            send = (always || !s.localClosed && !s.isReset()) && !ended;
            s.localClosed = true;
            s.markReset(why);
            removeStream(s.id());
            windowOpened.signalAll();
        } finally {
            lock.unlock();
        }
        if (send) {
            try {
                writer.rstStream(s.id(), code);
            } catch (IOException e) {
                log.debug("h2 connection {}: RST_STREAM failed: {}", id, e.toString());
            }
        }
        endOutputIfDone();
    }

    /**
     * Ends what a reset stream's handler is doing upstream. The handler's own cancel (its upstream attempt's abort:
     * RST_STREAM to an HTTP/2 origin, the socket of an HTTP/1.1 one closed) when it registered one; else its thread
     * is interrupted (a virtual thread interrupted in a socket read closes that socket), under the writer's lock so
     * that it never lands in a write to the client. The interrupt cannot tell a socket the thread owns from one that
     * other streams share (a multiplexed upstream connection), which is why the proxy registers a cancel.
     */
    private void cancelHandler(Runnable cancel, Thread handler) {
        if (cancel != null) {
            try {
                cancel.run();
            } catch (RuntimeException e) {
                log.warn("h2 connection {}: cancelling a reset stream's work failed", id, e);
            }
        } else if (handler != null) {
            writer.interruptBetweenWrites(handler);
        }
    }

    /** A stream error found by the reader. */
    private void resetFromReader(int stream, int code, String why) throws IOException {
        Http2Stream s;
        lock.lock();
        try {
            s = streams.get(stream);
        } finally {
            lock.unlock();
        }
        if (s != null) {
            Runnable cancel;
            Thread handler;
            lock.lock();
            try {
                cancel = s.onCancel;
                handler = cancel == null ? s.thread : null;
            } finally {
                lock.unlock();
            }
            cancelHandler(cancel, handler);
            resetLocally(s, code, why, true);
        } else {
            writer.rstStream(stream, code);
        }
    }

    /** After GOAWAY, once the last stream is done: half-close, so the client sees every response and then EOF. */
    private void endOutputIfDone() {
        boolean end;
        lock.lock();
        try {
            end = goAwaySent && streams.isEmpty() && !outputEnded;
            if (end) {
                outputEnded = true;
            }
        } finally {
            lock.unlock();
        }
        if (end) {
            flushOutput();
            endOutput.run();
        }
    }
}
