package io.loomgate.http2;

import io.loomgate.http.ClientCancel;
import io.loomgate.http.HttpLimits;
import io.loomgate.threads.LingeringClose;
import io.loomgate.threads.WatchedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP/2 server connection (RFC 9113): the thread that calls {@link #serve()} reads every frame; each request
 * stream runs its {@link StreamHandler} on a virtual thread of its own.
 *
 * <p>Frames are read by a {@link FrameReader} (framing, header blocks, HPACK, the checks RFC 9113 makes of any
 * frame), which calls the server's handler, {@link ServerFrames} (admission, a handler thread per stream, the
 * floods). Send windows are a {@link SendWindow}, the peer's settings {@link PeerSettings}, each stream's request body
 * an {@link InboundBody}: the classes the client side ({@link Http2ClientConnection}) uses. This class keeps the
 * connection's life: the preface, the read loop, parking, the stream table and the end. Three jobs beside it are
 * classes of their own, which the connection's callers reach through it: how a stream ends early (reset by either
 * side, or its client told to stop sending) is {@link StreamResets}'; the rest of an early-answered request, which
 * the reader throws away within bounds, is {@link EarlyAnswerDiscards}'; GOAWAY either way and the half-close once
 * the last stream is done are {@link GoAway}'s. All three are guarded by this connection's lock.
 *
 * <p>State and threads: reader-only state (the frame reader and its handler) is plain fields.
 * What stream threads also touch (the stream map, send windows, the peer's settings, the GOAWAY state) is guarded by
 * {@link #lock}, a ReentrantLock that is never held across I/O. Frames are added by whichever thread has one to send
 * to the {@link FrameWriter}'s batch, which one of them writes.
 *
 * <p>Defences (each has a test): Rapid Reset and MadeYouReset (resets of open streams, the client's or those its
 * malformed frames make us send, over a rate → GOAWAY ENHANCE_YOUR_CALM), CONTINUATION flood (a header block is
 * bounded in bytes and frames across CONTINUATIONs), HPACK bomb (decoded list size bounded: 431 for that request),
 * SETTINGS, PING, PRIORITY and empty-DATA floods and frames on closed streams (rate → ENHANCE_YOUR_CALM),
 * WINDOW_UPDATE floods (bounded by the DATA frames sent → ENHANCE_YOUR_CALM), zero-window stall (a stream waiting
 * for send window longer than the read timeout is reset), stream-id exhaustion (after maxStreamsPerConnection
 * streams, GOAWAY asks for a new connection), MAX_CONCURRENT_STREAMS (more are refused with REFUSED_STREAM).
 *
 * <p>Idle connections ({@link ConnectionParking}, h2c only): when no stream is open, no handler runs, nothing is buffered and no
 * GOAWAY was sent or received, a reader that found no frame within the hand-off delay gives the connection to the
 * listener's idle poller and its thread ends ({@link #serve()} returns true); the next bytes resume it on a new
 * thread ({@link #resume}). Everything else (HPACK table, settings, windows, stream ids, the rate limits) stays as it
 * is in this object, so a request after the park decodes against the same table and the floods count on.
 */
public final class Http2Connection {
    private static final Logger log = LoggerFactory.getLogger(Http2Connection.class);
    /** Our receive window for the whole connection; credit returns as soon as DATA is buffered per stream. */
    static final int CONNECTION_WINDOW = 1 << 20;
    /** How far a stream's receive window grows while its handler keeps up (from SETTINGS_INITIAL_WINDOW_SIZE). */
    static final int MAX_STREAM_WINDOW = 1 << 20;
    /**
     * Window granted beyond SETTINGS_INITIAL_WINDOW_SIZE, summed over a connection's open streams, at most this: a
     * window is a promise to buffer that much, so a connection buffers at most max-concurrent-streams x the initial
     * window plus this (docs/http2.md, "Flow control").
     */
    static final int WINDOW_GROWTH_BUDGET = 1 << 20;

    /** Returned by {@link #awaitOrPark} when the connection was parked. */
    private static final int PARKED = -2;
    /** From {@link #handOffRead}: no frame within the hand-off delay; and the wait's look found no handler left. */
    private static final int HANDED_ON = -3;
    private static final int NOT_ANSWERING = -4;
    private static final byte[] NOTHING = new byte[0];

    private final long id;
    /**
     * The socket's input and the frame reader's: dropped while parked, made anew on resume. Written by the reader
     * only; the handler that ends the last stream reads it under the lock to bound the reader's open wait.
     */
    private WatchedInputStream socketIn;
    private final FrameReader<RequestFields> frames;
    final FrameWriter writer;
    private final Http2Settings settings;
    private final int maxHeaderListSize;
    private final Duration idleTimeout;
    private final Duration readTimeout;
    /** The listener's {@code linger-timeout}: bounds an early-answered stream's rest ({@link Http2Stream}). */
    private final Duration lingerTimeout;
    /** Set by the reader when it ends with a GOAWAY for an error (see {@link #endedWithError()}). */
    private volatile boolean endedWithError;
    /** How the connection parks while idle; null when it keeps its thread (TLS, platform threads). */
    private final ConnectionParking parking;
    final ReentrantLock lock = new ReentrantLock();
    final SendWindow sendWindow = new SendWindow(lock);
    final PeerSettings peer = new PeerSettings(lock, sendWindow, Integer.MAX_VALUE);
    // guarded by lock
    /** The open streams by id; it holds no arrays while none is open (see {@link StreamTable}). */
    private final StreamTable<Http2Stream> streams = new StreamTable<>();
    /** GOAWAY either way and the half-close after it (its flags volatile, besides written under the lock). */
    private final GoAway goAway;
    private boolean ended;
    /**
     * Stream handlers still running: a handler may write after its stream left the map, so none may be parked.
     * Written under the lock; volatile for the reader's look between frames ({@link #answering}), which takes no lock.
     */
    private volatile int handlers;
    /** Signalled when {@link #handlers} falls to 0 (see {@link #awaitHandlers}). */
    private final Condition handlersDone = lock.newCondition();
    /** Window granted beyond the initial one to the open streams ({@link #growWindow}); guarded by lock. */
    private final WindowGrowth windowGrowth = new WindowGrowth(MAX_STREAM_WINDOW, WINDOW_GROWTH_BUDGET);
    /** How streams end early (resets either way, a client told to stop) and the ring of those reset lately. */
    final StreamResets resets;
    /** DATA frames sent on this connection (the clients' WINDOW_UPDATEs are bounded by them); guarded by lock. */
    long dataFramesSent;
    /** The early-answered streams whose rest the reader discards; guarded by lock. */
    private final EarlyAnswerDiscards discards;
    // reader thread only
    private final ServerFrames server;

    /**
     * @param alreadyRead bytes read from the socket before the connection knew it was HTTP/2 (starting with the
     *                    preface)
     * @param endOutput   half-closes the socket's output: the graceful end after GOAWAY, once every stream is done
     */
    public Http2Connection(long id, WatchedInputStream socketIn, byte[] alreadyRead, OutputStream out,
                           Http2Settings settings, HttpLimits limits, Duration idleTimeout,
                           Duration readTimeout, Runnable endOutput, StreamHandler handler) {
        this(id, socketIn, alreadyRead, out, settings, limits, idleTimeout, readTimeout, LingeringClose.TOTAL,
                endOutput, handler, null);
    }

    /**
     * @param lingerTimeout the most an early-answered stream's rest is read and thrown away (the listener's
     *                      {@code linger-timeout}; the read timeout if shorter)
     * @param parking       how the connection parks while idle; null to keep its reader thread throughout
     */
    public Http2Connection(long id, WatchedInputStream socketIn, byte[] alreadyRead, OutputStream out,
                           Http2Settings settings, HttpLimits limits, Duration idleTimeout,
                           Duration readTimeout, Duration lingerTimeout, Runnable endOutput, StreamHandler handler,
                           ConnectionParking parking) {
        this.id = id;
        this.socketIn = socketIn;
        this.writer = new FrameWriter(out, true);
        this.server = new ServerFrames(this, id, settings, limits.maxHeaderCount(), handler);
        this.frames = new FrameReader<>(this, true, new FrameInput(socketIn, alreadyRead), writer,
                CONNECTION_WINDOW, limits.maxHeaderBytes(), server);
        this.settings = settings;
        this.resets = new StreamResets(this, id, streams, settings);
        this.discards = new EarlyAnswerDiscards(this, id, streams);
        this.goAway = new GoAway(this, id, streams, server, endOutput);
        this.maxHeaderListSize = limits.maxHeaderBytes();
        this.idleTimeout = idleTimeout;
        this.readTimeout = readTimeout;
        this.lingerTimeout = lingerTimeout;
        this.parking = parking;
    }

    /**
     * Reads the preface, then frames until the connection ends or parks. Returns false when it ended (cleanly or
     * with a GOAWAY sent), true when it was handed to the idle poller: the caller's thread is done with it.
     */
    public boolean serve() throws IOException {
        return run(true);
    }

    /** Carries on after a park on the calling (new) thread, reading the new input; returns as {@link #serve()}. */
    public boolean resume(WatchedInputStream socketIn) throws IOException {
        this.socketIn = socketIn;
        frames.input(new FrameInput(socketIn, NOTHING));
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
            goAway.send(e.code(), e.getMessage());
            endedWithError = true;
        } catch (SocketTimeoutException e) {
            log.debug("h2 connection {}: {}", id, e.getMessage());
            goAway.send(Frames.NO_ERROR, "idle timeout");
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
        frames.readFully(preface, 0, preface.length);
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
            int got = parking != null && !frames.input().holdsBytes() ? awaitOrPark() : awaitFrame();
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
     * The wait for the next frame of a connection that may park; returns what {@link FrameReader#awaitFrame} does,
     * or {@link #PARKED}.
     *
     * <p>As for HTTP/1.1, through the same park state (the server's ParkState): a timed wait arms and cancels a JDK
     * timer, so a <em>busy</em> connection, whose previous wait ended within the hand-off delay, waits untimed as
     * {@link #awaitFrame} does, and the park state learns from how long that took. Every other wait blocks for the
     * hand-off delay at a time ({@link #handOffRead}), then parks if nothing is in flight. Its idle bound: while a
     * stream is answered none of its own, as in awaitFrame (an open wait, which the handler that ends the last stream
     * bounds), so that a reader whose thread waits for a carrier longer than the idle timeout is not cut with a stream
     * open (journal 2026-12-02-s60-handoff); else the watchdog at the idle end (from the last handler's return),
     * whose cut also ends a TLS client's records that carry no data (they would keep a TLS read going past any
     * SO_TIMEOUT, which bounds each raw read under it). The waits of a connection's first stream, and the first after a
     * resumption, are not learned from (a client's SETTINGS ACK comes right after its first request). The price: a
     * busy connection that falls silent keeps its thread until its next frame or its idle timeout.
     */
    private int awaitOrPark() throws IOException {
        long start = System.nanoTime();
        if (parking.waitsUntimed() || !mayBecomeIdle()) {
            int got = awaitFrame();
            parking.waitedUntimed(System.nanoTime() - start);
            return got;
        }
        long handOff = parking.handOffNanos();
        long idleEnd = start + parking.idleLeftNanos(idleTimeout.toNanos());
        while (true) {
            int got;
            if (answering()) {
                socketIn.beginOpenWait();
                try {
                    // Looked at again once open, as in awaitFrame: a handler that ended before bounded nothing.
                    got = answering() ? handOffRead(handOff) : NOT_ANSWERING;
                } finally {
                    idleEnd = System.nanoTime() + Math.min(socketIn.endOpenWait(), idleTimeout.toNanos());
                }
                if (got == NOT_ANSWERING) {
                    continue;
                }
            } else {
                long left = Math.max(1, idleEnd - System.nanoTime());
                socketIn.setReadTimeoutNanos(left); // the watchdog at the idle end
                got = handOffRead(Math.min(handOff, left));
            }
            if (got != HANDED_ON) {
                parking.waitedTimed(server.streamsOpened() > 1, System.nanoTime() - start);
                return got;
            }
            if (idleEnd - System.nanoTime() <= 0) {
                throw idleFor(); // the last handler's bound passed, or the idle end as SO_TIMEOUT's soft end came
            }
            if (isIdle()) { // quiet for the hand-off delay with nothing in flight
                if (park(idleEnd - System.nanoTime())) {
                    return PARKED;
                }
                if (!mayBecomeIdle()) {
                    return awaitFrame(); // drain began meanwhile: GOAWAY is sent, the client finishes
                }
            }
        }
    }

    /**
     * A read for the next frame that ends softly after {@code nanos} (SO_TIMEOUT, not the watchdog, whose cut is for
     * good): {@link #HANDED_ON} then. The watchdog's cut, told apart by the socket's input, is the idle timeout.
     */
    private int handOffRead(long nanos) throws IOException {
        parking.boundReads((int) Math.max(1, nanos / 1_000_000));
        try {
            return frames.awaitFrame();
        } catch (SocketTimeoutException e) {
            if (socketIn.cut()) {
                throw idleFor(); // the input is gone: never parked
            }
            return HANDED_ON;
        } finally {
            parking.boundReads(0);
        }
    }

    private SocketTimeoutException idleFor() {
        return new SocketTimeoutException("idle for " + idleTimeout.toMillis() + " ms");
    }

    /** Whether no GOAWAY was sent or received: a connection that is ending never parks. */
    private boolean mayBecomeIdle() {
        return !goAway.sent();
    }

    /** Whether nothing is in flight: no stream, no handler, no header block, no GOAWAY. Reader thread. */
    private boolean isIdle() {
        if (frames.inHeaderBlock() || frames.input().holdsBytes()) {
            return false;
        }
        lock.lock();
        try {
            return streams.isEmpty() && handlers == 0 && !goAway.sent();
        } finally {
            lock.unlock();
        }
    }

    /** Drops the input and hands the connection over; restores the input if it was not taken. */
    private boolean park(long idleLeftNanos) throws IOException {
        FrameInput keptIn = frames.input();
        WatchedInputStream keptSocketIn = socketIn;
        frames.input(null);
        frames.parking();
        lock.lock();
        try {
            streams.release(); // empty (isIdle): its kept first arrays go too
        } finally {
            lock.unlock();
        }
        socketIn = null;
        writer.readerIs(null); // the ended thread would stay reachable from the writer (its object and name: ~250 B)
        // Once handed over, the poller may resume the connection on a new thread at once: nothing after this.
        if (parking.park(idleLeftNanos)) {
            return true;
        }
        writer.readerIs(Thread.currentThread());
        frames.input(keptIn);
        socketIn = keptSocketIn;
        return false;
    }

    /**
     * The GOAWAY (NO_ERROR) that ends a parked connection (its idle timeout, drain), as bytes for the poller to write
     * without blocking; no stream was opened after {@link ServerFrames#lastStreamId}, and none will be.
     */
    public byte[] goAwayWhileParked(String why) {
        return goAway.whileParked(why);
    }

    /** Writes the frames gathered for the next batch now; the output is about to be half-closed or closed. */
    void flushOutput() {
        try {
            writer.flush();
        } catch (IOException e) {
            log.debug("h2 connection {}: final flush failed: {}", id, e.toString());
        }
    }

    /** Starts a graceful end (drain): GOAWAY now, streams in flight finish, then the connection closes. */
    public void drain() {
        goAway.drain();
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

    /**
     * Whether the connection ended with a GOAWAY for an error: the client's frames in flight still come, and closing
     * with them unread makes the kernel send RST, which can drop the GOAWAY before the client reads it. The owner of
     * the socket then lingers before it closes (the server's LingeringClose: half-close, read and throw away within a
     * per-read timeout, a total deadline and a byte budget).
     */
    public boolean endedWithError() {
        return endedWithError;
    }

    /** The connection is over: every stream still open is reset so its thread stops waiting. */
    private void endAll(String why) {
        List<Http2Stream> left;
        List<ClientCancel> cancels = new ArrayList<>();
        lock.lock();
        try {
            ended = true;
            left = streams.values();
            streams.clear();
            windowGrowth.reset();
            discards.endAllLocked();
            for (Http2Stream s : left) {
                s.markReset(why);
                if (s.onCancel != null && !s.localClosed) {
                    cancels.add(s.onCancel);
                }
            }
            sendWindow.wake();
        } finally {
            lock.unlock();
        }
        // The client is gone: what its streams' handlers still wait for upstream is cancelled. Not for a stream whose
        // response went to the writer whole (its last frame ended it): its handler waits for nothing upstream, and a
        // client that closes as it reads END_STREAM must not have the attempt aborted, which closed an HTTP/1.1
        // origin's connection instead of pooling it (Http2StreamLifecycleTest). A body relay still uploading beside
        // it ends as its read of the reset stream fails.
        cancels.forEach(c -> resets.cancelHandler(c, null));
    }

    /**
     * Answers a client on a prior-knowledge port whose first line is neither an HTTP/1.x request nor the HTTP/2
     * preface: RFC 9113 §3.4 makes an invalid preface a connection error, so it gets GOAWAY PROTOCOL_ERROR.
     */
    public static void refusePreface(OutputStream out) throws IOException {
        new FrameWriter(out).goAway(0, Frames.PROTOCOL_ERROR, "invalid connection preface");
    }

    // ---------------------------------------------------------------- reading: what the server does with frames

    /**
     * Waits for the first bytes of the next frame: what {@link FrameReader#awaitFrame} returns (-1 at the end).
     *
     * <p>Between frames the idle timeout applies, but not while a stream is answered: a client that sent its request
     * and waits for the answer sends nothing meanwhile, and however long the answer takes (the route's deadlines bound
     * it) the connection is not idle (journal 2026-12-02-s58-platformh2: a GOAWAY "idle timeout" in place of a slow
     * answer). So while a handler runs the wait has no bound of its own, no timer and no deadline per frame, as
     * nginx's and Go's HTTP/2 idle timers are off while streams are active: the handler that ends the last stream
     * bounds it at the idle timeout from then ({@link #handlerGone}), through the read watchdog, whose cut also ends
     * a TLS client's records that carry no data. Journal 2026-12-02-s59-h2idle.
     */
    private int awaitFrame() throws IOException {
        // Once GOAWAY was sent and every stream is done (output half-closed) the client only has to notice and close,
        // so it gets a short while.
        if (goAway.outputEnded()) {
            socketIn.setReadTimeout(Duration.ofSeconds(2));
            return frames.awaitFrame();
        }
        if (answering()) {
            socketIn.beginOpenWait();
            try {
                // Looked at again once the wait is open: a handler that ended before the wait opened found nothing to
                // bound (a lost wake-up: this wait would have no idle bound); one that ends from here on bounds it.
                if (answering()) {
                    return frames.awaitFrame();
                }
            } finally {
                socketIn.endOpenWait();
            }
        }
        socketIn.setReadTimeout(idleTimeout);
        return frames.awaitFrame();
    }

    /**
     * Whether a stream's handler still runs (its answer is unfinished): the connection is answering, not idle. Without
     * the lock (a look before each wait): a stream joins, its handler counted, on this reader thread.
     */
    private boolean answering() {
        return handlers > 0;
    }

    /** Reads and handles the frame whose first {@code got} bytes were awaited. */
    private void readFrame(int got) throws IOException, Http2Exception {
        socketIn.setReadTimeout(readTimeout);
        frames.readFrame(got);
    }

    /** A client reset a stream: it ends, and its handler's work upstream is cancelled. Whether one was open. */
    boolean resetByClient(int stream) {
        return resets.resetByClient(stream);
    }

    /** The client sent GOAWAY: it opens no more streams; those in flight finish, then the connection closes. */
    void goAwayReceived() {
        goAway.received();
    }

    /** Whether a new stream may open: no GOAWAY either way, and fewer than {@code maxConcurrent} open. */
    boolean mayOpen(int maxConcurrent) {
        lock.lock();
        try {
            return !goAway.sent() && streams.size() < maxConcurrent;
        } finally {
            lock.unlock();
        }
    }

    /** A new stream joins the table, its handler counted as running (see {@link #handlerEnded}). */
    void add(Http2Stream s) {
        lock.lock();
        try {
            s.sendWindow = sendWindow.newStream();
            streams.put(s.id(), s);
            handlers++;
        } finally {
            lock.unlock();
        }
    }

    /**
     * On a stream's thread, its handler returned: the stream no longer has a thread to interrupt. A handler that
     * finished its response has made its last write, so it ends here too (one turn of the lock where two were: each
     * contended turn hands the lock to a parked thread); true when the response is unfinished, and then
     * {@link #handlerEnded} follows the reset.
     */
    boolean handlerReturned(Http2Stream s) {
        lock.lock();
        try {
            s.thread = null;
            if (s.localClosed) {
                handlerGone();
                return false;
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: a writer that is no stream's handler counts as one, so no park comes under its write. */
    void writerStartsLocked() {
        handlers++;
    }

    /** A stream's handler returned, after its last write: once none runs, the connection may park. */
    void handlerEnded() {
        lock.lock();
        try {
            handlerGone();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Under the lock: one handler fewer; the last one wakes {@link #awaitHandlers} and starts the idle time of the
     * reader's open wait, if it is in one ({@link #awaitFrame}, {@link #awaitOrPark}); if not, its next wait finds no
     * handler and bounds itself. The bound only lands on an open wait (a compare-and-set), never on the next read.
     */
    private void handlerGone() {
        if (--handlers == 0) {
            handlersDone.signalAll();
            WatchedInputStream in = socketIn;
            if (in != null) {
                in.boundOpenWait(idleTimeout.toNanos());
            }
        }
    }

    /**
     * After the connection's end (its reader returned, its socket closed): waits until every stream handler has
     * returned, at most {@code timeout}. A handler unwinds a cancelled upstream attempt and then writes its access
     * line and metrics; until then the connection counts as open, so a drain does not report itself done and let
     * the process exit under them (session 58: two streams whose client left mid-drain were never logged). Called
     * after the socket's close, which frees a handler blocked writing to a client that stopped reading; the server
     * bounds it by the read timeout, the longest any of their blocked reads lasts (a drain stops waiting at its own
     * deadline anyway). Whether none is left.
     */
    public boolean awaitHandlers(Duration timeout) {
        long left = timeout.toNanos();
        lock.lock();
        try {
            while (handlers > 0) {
                if (left <= 0) {
                    log.debug("connection {}: stream handlers still running {} after its end", id, timeout);
                    return false;
                }
                left = handlersDone.awaitNanos(left);
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock. */
    Http2Stream streamLocked(int stream) {
        return streams.get(stream);
    }

    /** The send windows of the open streams: a SETTINGS_INITIAL_WINDOW_SIZE moves them all. Under the lock. */
    List<SendWindow.Stream> openWindows() {
        List<SendWindow.Stream> open = new ArrayList<>(streams.size());
        for (Http2Stream s : streams.values()) {
            open.add(s.sendWindow);
        }
        return open;
    }

    // ---------------------------------------------------------------- writing, from stream threads

    long readTimeoutNanos() {
        return readTimeout.toNanos();
    }

    long lingerTimeoutNanos() {
        return lingerTimeout.toNanos();
    }

    /** Under the lock: whether the connection is over (every stream was reset). */
    boolean endedLocked() {
        return ended;
    }

    /** Our side of the stream has ended: a client still sending is told to stop (see {@link StreamResets}). */
    void afterLocalEnd(Http2Stream s) {
        resets.afterLocalEnd(s);
    }

    /**
     * On a stream's thread whose handler answered early and returned: the reader discards the rest of the request
     * from now on (see {@link EarlyAnswerDiscards}); false when there is none to discard any more.
     */
    boolean discardRest(Http2Stream s) {
        return discards.discardRest(s);
    }

    /** On the reader: a discarded stream passed a bound: RST_STREAM NO_ERROR ends it. */
    void discardBoundPassed(Http2Stream s) {
        resets.discardBoundPassed(s);
    }

    /** Under the lock, on the reader: DATA on a stream this side reset lately, to be ignored ({@link ResetStreams}). */
    boolean absorbsDataLocked(int stream, int length, boolean endStream) {
        return resets.absorbsDataLocked(stream, length, endStream);
    }

    /** Under the lock, on the reader: trailers on a stream this side reset lately, to be ignored. */
    boolean absorbsTrailersLocked(int stream) {
        return resets.absorbsTrailersLocked(stream);
    }

    /** The receive window every new stream's body starts with (our SETTINGS_INITIAL_WINDOW_SIZE). */
    int initialWindowSize() {
        return settings.initialWindowSize();
    }

    /**
     * Under the lock: how much larger a stream's window of {@code current} bytes may become now: doubled, up to
     * {@link #MAX_STREAM_WINDOW}, while the connection's {@link #WINDOW_GROWTH_BUDGET} lasts (0 once it is spent).
     * The stream gives the growth back when it leaves ({@link #removeStream}).
     */
    int growWindow(int current) {
        return windowGrowth.grow(current);
    }

    /** Under the lock: removes a stream (once the last one leaves, the table lets its arrays go). */
    Http2Stream removeStream(int stream) {
        Http2Stream s = streams.remove(stream);
        if (s != null) {
            windowGrowth.giveBack(s.grownLocked());
            discards.removedLocked(s);
        }
        return s;
    }

    /** Under the lock: a stream both sides have ended leaves the map. */
    void closeIfDone(Http2Stream s) {
        if (s.localClosed && s.remoteClosed()) {
            removeStream(s.id());
        }
    }

    /** Resets a stream from its own thread (or the reader): RST_STREAM, unless it already ended. */
    void resetLocally(Http2Stream s, int code, String why) {
        resets.resetLocally(s, code, why);
    }

    /** A stream error found by the reader; whether it reset a stream that was open (see {@link StreamResets}). */
    boolean resetFromReader(int stream, int code, String why, boolean opening) throws IOException {
        return resets.resetFromReader(stream, code, why, opening);
    }

    /** After GOAWAY, once the last stream is done: half-close, so the client sees every response and then EOF. */
    void endOutputIfDone() {
        goAway.endOutputIfDone();
    }

    @Override
    public String toString() {
        return "h2 connection " + id;
    }
}
