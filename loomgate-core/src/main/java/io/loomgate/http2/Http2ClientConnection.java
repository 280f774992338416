package io.loomgate.http2;

import io.loomgate.http.ConnectionAttributes;
import io.loomgate.http.GeneratedField;
import io.loomgate.http.Headers;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.Deadline;
import io.loomgate.threads.LingeringClose;
import io.loomgate.threads.Watchdog;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP/2 connection to an origin (RFC 9113, the client side), multiplexing the gateway's upstream attempts: each
 * attempt is one {@link Http2ClientStream}. One reader virtual thread per connection reads every frame and hands it
 * to its stream; request threads write their own frames (HEADERS, DATA, RST_STREAM) through the shared
 * {@link FrameWriter}.
 *
 * <p>Frames are read by a {@link FrameReader} (framing, header blocks, HPACK, the connection receive window, the
 * checks RFC 9113 makes of any frame), which calls this connection's handler, {@link ClientFrames}; send windows are a
 * {@link SendWindow}, the origin's settings {@link PeerSettings} and each response body an {@link InboundBody}: the
 * classes the server side ({@link Http2Connection}) uses. What is the client's is here: reservations, stream ids,
 * the stream map, the keep-alive; its handler delivers responses to their streams and turns GOAWAY into refused
 * streams, and {@link GoAwayVerdict} says whether a stream whose write failed was refused or may have been processed.
 *
 * <p>State and threads: reader-only state (the frame reader) is plain fields. What request threads also touch (the
 * stream map, reservations, send windows, the origin's settings, going-away and dead) is guarded by {@link #lock}, a
 * ReentrantLock never held across socket I/O, except {@link #openLock}, held while a new stream's id is taken and
 * its HEADERS written, because ids must reach the wire in increasing order (RFC 9113 §5.1.1).
 *
 * <p>Capacity: a caller first {@link #tryReserve() reserves} a stream slot (refused when the origin's
 * SETTINGS_MAX_CONCURRENT_STREAMS are all in use, after a GOAWAY, or on a dead connection), then {@link #open opens}
 * it. Whenever a slot frees or the connection stops taking streams, {@code onCapacity} runs (outside any lock), so
 * the pool can wake a waiter or open another connection.
 *
 * <p>Memory: each stream buffers at most its receive window ({@link #STREAM_WINDOW}) of response body; the window is
 * reopened only as the request thread reads. The connection window is reopened as DATA arrives (the stream windows
 * bound the buffering), so one slow client never stalls the other streams of the connection.
 *
 * <p>Keep-alive ({@link #keepAlive}, a {@link KeepAlive}): PINGs on a silent connection, which is closed when nothing
 * answers, so its streams fail (and are retried as the route allows) and new ones go to a fresh connection.
 */
public final class Http2ClientConnection {
    private static final Logger log = LoggerFactory.getLogger(Http2ClientConnection.class);
    /** Streams assumed allowed until the origin's SETTINGS say otherwise (RFC 9113 §6.5.2 leaves it unlimited). */
    static final int ASSUMED_MAX_CONCURRENT = 100;
    /** Response body bytes one stream may have buffered: its receive window (SETTINGS_INITIAL_WINDOW_SIZE). */
    static final int STREAM_WINDOW = 256 * 1024;
    /** The connection's receive window. */
    static final int CONNECTION_WINDOW = 16 << 20;
    private static final int MAX_STREAM_ID = Integer.MAX_VALUE;

    final String name;
    private final FrameReader<ResponseFields> frames;
    final FrameWriter writer;
    private final Runnable closeSocket;
    final Runnable onCapacity;
    final int maxHeaderListSize;
    final ReentrantLock lock = new ReentrantLock();
    final SendWindow sendWindow = new SendWindow(lock);
    final PeerSettings peer = new PeerSettings(lock, sendWindow, ASSUMED_MAX_CONCURRENT);
    private final ReentrantLock openLock = new ReentrantLock();
    /** The open streams by id, keyed by the int itself (no {@code Integer} per stream or lookup); guarded by lock. */
    final StreamTable<Http2ClientStream> streams = new StreamTable<>();
    private final ConnectionAttributes attributes = new ConnectionAttributes();
    private int reserved;
    int nextStreamId = 1;
    boolean goingAway;
    private String deadWhy;
    private long streamsOpened;
    private long idleSinceNanos = System.nanoTime();
    private int maxStreamBuffered;
    // reader thread only
    private Thread reader;
    /** The PING keep-alive, or null when off; set before {@link #start}. */
    KeepAlive pings;
    /** Whether the origin holds the reader inside a frame while a head is overdue ({@link #headTimedOut}). */
    final StalledFrameWatch stalls = new StalledFrameWatch(this);
    /** Whether the origin has stopped reading while a head is overdue (a socket write blocked). */
    private final StalledWriteWatch writeStall;
    /** What the origin's GOAWAYs say of a stream: refused, or may have been processed (a failed write waits there). */
    final GoAwayVerdict verdict = new GoAwayVerdict(this);
    /** Bounds the origin's frames that cost us work without carrying a response (reader thread, but see there). */
    final OriginFloods floods;
    /**
     * How the connection ends after our GOAWAY for an error (set before {@link #start}; null: the socket closes at
     * once): half-close, read and throw away within bounds, so that the origin reads why (see {@link #lingerOnError}).
     */
    private Runnable linger;
    /** True while the reader lingers: {@link #close} or {@link #goAway} from another thread end it at once. */
    private volatile boolean lingering;

    /**
     * @param name        names the reader thread and log lines (the endpoint and a connection number)
     * @param in          the socket's input (TLS already negotiated)
     * @param out         the socket's output
     * @param closeSocket closes the socket, from any thread, without waiting for a writer
     * @param maxHeaderListSize bound on a decoded response head (SETTINGS_MAX_HEADER_LIST_SIZE)
     * @param onCapacity  runs whenever a stream slot frees or the connection stops taking streams
     */
    public Http2ClientConnection(String name, InputStream in, OutputStream out, Runnable closeSocket,
                                 int maxHeaderListSize, Runnable onCapacity) {
        this(name, in, out, closeSocket, maxHeaderListSize, onCapacity, OriginFloodLimits.DEFAULTS);
    }

    /**
     * As above, with the bounds on the origin's floods ({@link OriginFloodLimits}: {@code upstream.http2-max-*}).
     */
    public Http2ClientConnection(String name, InputStream in, OutputStream out, Runnable closeSocket,
                                 int maxHeaderListSize, Runnable onCapacity, OriginFloodLimits floodLimits) {
        this.name = name;
        this.floods = new OriginFloods(floodLimits, this::streamsOpened);
        this.writer = new FrameWriter(out, false, true);
        this.writeStall = new StalledWriteWatch(this, writer);
        this.frames = new FrameReader<>(this, false, FrameInput.unbuffered(in), writer,
                CONNECTION_WINDOW, maxHeaderListSize, new ClientFrames(this));
        this.closeSocket = closeSocket;
        this.maxHeaderListSize = maxHeaderListSize;
        this.onCapacity = onCapacity;
    }

    /**
     * Turns on the PING keep-alive (before {@link #start}): a PING after {@code intervalNanos} without a frame from
     * the origin, the connection closed when nothing is read within {@code timeoutNanos} of it.
     *
     * @param onTooManyPings told the interval in use when the origin answers our PINGs with GOAWAY ENHANCE_YOUR_CALM
     */
    public Http2ClientConnection keepAlive(long intervalNanos, long timeoutNanos,
                                           java.util.function.LongConsumer onTooManyPings) {
        this.pings = new KeepAlive(this, name, lock, intervalNanos, timeoutNanos, onTooManyPings);
        return this;
    }

    /**
     * Makes the end after our GOAWAY for an error a lingering close (before {@link #start}):
     * {@code halfCloseAndDiscard} half-closes the socket and reads and throws away what the origin still sends, within
     * bounds (the shared {@code LingeringClose}), on the reader thread, after the streams have failed; the socket is
     * closed after it. An origin that floods has unread frames in our receive buffer when we end the connection:
     * closing then makes the kernel send a RST, which discards what the origin had not read yet, our GOAWAY among them,
     * and it never learns why (session 44 saw 3 of 8 flood cases lose it; 9 of 32 flood cells in session 45's probe).
     */
    public Http2ClientConnection lingerOnError(Runnable halfCloseAndDiscard) {
        this.linger = halfCloseAndDiscard;
        return this;
    }

    /** Sends the preface and our SETTINGS, then starts the reader thread (and the keep-alive's, when on). */
    public Http2ClientConnection start() throws IOException {
        writer.preface();
        writer.settings(new int[] {
                Frames.SETTINGS_ENABLE_PUSH, 0,
                Frames.SETTINGS_INITIAL_WINDOW_SIZE, STREAM_WINDOW,
                Frames.SETTINGS_MAX_HEADER_LIST_SIZE, maxHeaderListSize});
        writer.windowUpdate(0, CONNECTION_WINDOW - Frames.DEFAULT_WINDOW);
        reader = ConnectionExecutors.startVirtual("h2-upstream-" + name, this::readLoop);
        if (pings != null) {
            ConnectionExecutors.startVirtual("h2-upstream-keepalive-" + name, pings::run);
        }
        return this;
    }

    /**
     * Waits until the origin's first SETTINGS arrived (its stream limit and windows are known), until
     * {@code deadlineNanos}; then the connection is closed and the wait fails.
     */
    public void awaitSettings(long deadlineNanos) throws IOException {
        lock.lock();
        try {
            while (!peer.receivedLocked()) {
                if (deadWhy != null) {
                    throw new IOException("upstream connection " + name + " " + deadWhy);
                }
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                try {
                    peer.awaitLocked(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException("interrupted while waiting for SETTINGS from " + name);
                }
            }
            if (peer.receivedLocked()) {
                return;
            }
        } finally {
            lock.unlock();
        }
        close("no SETTINGS in time");
        throw new java.net.SocketTimeoutException("origin " + name + " sent no SETTINGS within the connect timeout");
    }

    // ---------------------------------------------------------------- capacity, for the pool

    /**
     * Reserves a slot for one stream; false when the connection is full, going away or dead, while a response head
     * is overdue behind the frame its reader is in (a new stream would wait behind that frame too), or while a write
     * to the origin has been blocked {@link StalledWriteWatch#STALLED_WRITE_NANOS} or more (HEADERS would wait behind
     * it).
     */
    public boolean tryReserve() {
        lock.lock();
        try {
            if (deadWhy != null || goingAway || nextStreamId + 2L * reserved >= MAX_STREAM_ID
                    || streams.size() + reserved >= peer.maxConcurrentStreams() || stalls.holdsStreamsLocked()
                    || writeStall.stalled()) {
                return false;
            }
            reserved++;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Gives back a reservation that was not used. */
    public void unreserve() {
        lock.lock();
        try {
            reserved--;
        } finally {
            lock.unlock();
        }
        onCapacity.run();
    }

    /** Whether new streams may still be opened here (not going away, not dead). */
    public boolean isUsable() {
        lock.lock();
        try {
            return deadWhy == null && !goingAway;
        } finally {
            lock.unlock();
        }
    }

    /** Whether the connection is over: closed, failed, or gone away with nothing left on it. */
    public boolean isDead() {
        lock.lock();
        try {
            return deadWhy != null;
        } finally {
            lock.unlock();
        }
    }

    /** Streams open (and reserved) now. */
    public int activeStreams() {
        lock.lock();
        try {
            return streams.size() + reserved;
        } finally {
            lock.unlock();
        }
    }

    /** Streams this connection has carried since it opened. */
    public long streamsOpened() {
        lock.lock();
        try {
            return streamsOpened;
        } finally {
            lock.unlock();
        }
    }

    /** The origin's SETTINGS_MAX_CONCURRENT_STREAMS (assumed {@value #ASSUMED_MAX_CONCURRENT} until it says). */
    public int maxConcurrentStreams() {
        return peer.maxConcurrentStreams();
    }

    /**
     * Closes the connection if it has carried no stream for {@code idleNanos} at {@code nowNanos}; says whether it
     * did. A GOAWAY (NO_ERROR) tells the origin first.
     */
    public boolean closeIfIdle(long nowNanos, long idleNanos) {
        lock.lock();
        try {
            if (deadWhy != null || !streams.isEmpty() || reserved > 0 || nowNanos - idleSinceNanos < idleNanos) {
                return false;
            }
            goingAway = true;
        } finally {
            lock.unlock();
        }
        close("idle timeout");
        return true;
    }

    /**
     * Takes no new streams; the connection closes once those in flight end (a pool drained by a reload, or shut
     * down). Idempotent. A connection lingering after our GOAWAY for an error has none left: its linger ends now.
     */
    public void goAway() {
        if (lingering) {
            closeSocket.run();
            return;
        }
        lock.lock();
        try {
            goingAway = true;
        } finally {
            lock.unlock();
        }
        afterRemoval();
    }

    /**
     * Ends the connection now: GOAWAY, the socket closed, every stream on it failed. Idempotent; on a connection that
     * is lingering after a GOAWAY for an error, it ends the linger (closes the socket).
     */
    public void close(String why) {
        if (lingering) {
            closeSocket.run();
            return;
        }
        // bounded as the reader's GOAWAY for an error is: behind a write the origin does not take, this one would wait
        // for as long as the origin reads nothing (past it the socket is closed, which ends both writes)
        try (Deadline d = Watchdog.shared().deadline(closeSocket)) {
            d.armAfter(LINGER_WRITE_NANOS);
            writer.goAway(0, Frames.NO_ERROR, why);
        } catch (IOException e) {
            log.debug("h2 upstream {}: GOAWAY failed: {}", name, e.toString());
        }
        die("connection closed: " + why);
    }

    // ---------------------------------------------------------------- streams, for request threads

    /**
     * Opens a stream on a slot {@link #tryReserve() reserved} before: writes its request head. Fields are sent as
     * given (lower-cased), after the pseudo-fields, except the connection-specific ones and Host, which is
     * {@code :authority} (RFC 9113 §8.2.2, §8.3.1).
     *
     * @param endStream the request has no body
     */
    public Http2ClientStream open(String method, String scheme, String authority, String path, Headers fields,
                                  boolean endStream) throws IOException {
        return open(method, scheme, authority, path, fields, null, endStream);
    }

    /** As {@link #open(String, String, String, String, Headers, boolean)}, with {@code generated} (if not null). */
    public Http2ClientStream open(String method, String scheme, String authority, String path, Headers fields,
                                  GeneratedField generated, boolean endStream) throws IOException {
        Http2ClientStream s;
        int frameSize;
        IOException writeFailed = null;
        openLock.lock();
        try {
            lock.lock();
            try {
                reserved--;
                Http2StreamException refused = verdict.refusalLocked(nextStreamId);
                if (refused != null) {
                    // the slot was reserved before the origin's GOAWAY was read (and maybe its close): nothing is
                    // written, any method may go again on another connection
                    lock.unlock();
                    try {
                        afterRemoval();
                    } finally {
                        lock.lock();
                    }
                    throw refused;
                }
                if (deadWhy != null) {
                    throw new IOException("upstream connection " + name + " " + deadWhy);
                }
                int id = nextStreamId;
                nextStreamId += 2;
                s = new Http2ClientStream(this, id, sendWindow.newStream(), STREAM_WINDOW, endStream);
                streams.put(id, s);
                streamsOpened++;
                frameSize = peer.maxFrameSize();
            } finally {
                lock.unlock();
            }
            int streamId = s.id();
            int maxFrame = frameSize;
            try {
                // encoded straight into the writer's buffer, under openLock as before: ids go out in order
                writer.requestHeaders(streamId, method, scheme, authority, path, fields, generated, maxFrame,
                        endStream);
            } catch (IOException e) {
                writeFailed = e; // judged below, outside openLock: other streams' opens need not wait for it
            } catch (RuntimeException e) {
                // a head that cannot be encoded (a bug: Headers holds no null) after its stream took its id and
                // slot: nothing was written, but the stream is registered; the connection goes rather than keep it
                die("request head not encoded: " + e);
                throw e;
            }
        } finally {
            openLock.unlock();
        }
        if (writeFailed != null) {
            IOException judged = verdict.afterWriteFailed(s.id(), writeFailed);
            die("write failed: " + writeFailed.getMessage());
            throw judged;
        }
        return s;
    }

    void writeData(int stream, byte[] b, int off, int len, boolean endStream) throws IOException {
        writer.data(stream, b, off, len, endStream);
        floods.dataFrameSent();
    }

    void writeTrailers(int stream, Headers trailers) throws IOException {
        int frameSize = peer.maxFrameSize();
        writer.requestHeaders(stream, null, null, null, null, trailers, null, frameSize, true);
    }

    void writeReset(int stream, int code) throws IOException {
        writer.rstStream(stream, code);
    }

    /** Under the lock: a stream now holds {@code bytes} of response unread (the high-water mark is kept). */
    void bufferedLocked(int bytes) {
        if (bytes > maxStreamBuffered) {
            maxStreamBuffered = bytes;
        }
    }

    /** The most response bytes one stream of this connection has held unread at once: at most its window. */
    public int maxStreamBuffered() {
        lock.lock();
        try {
            return maxStreamBuffered;
        } finally {
            lock.unlock();
        }
    }

    /** The receive window each stream gets: the most response bytes it can have buffered. */
    public static int streamWindow() {
        return STREAM_WINDOW;
    }

    /** Under the lock: a stream leaves the map (both sides ended, or reset); a slot frees. */
    void removeLocked(Http2ClientStream s) {
        if (streams.remove(s.id()) == s && streams.isEmpty() && reserved == 0) {
            idleSinceNanos = System.nanoTime();
        }
    }

    /** After a stream left: tell the pool; a connection going away closes once its last stream is done. */
    void afterRemoval() {
        boolean closeNow;
        lock.lock();
        try {
            closeNow = goingAway && deadWhy == null && streams.isEmpty() && reserved == 0;
        } finally {
            lock.unlock();
        }
        if (closeNow) {
            close("went away, last stream done");
        }
        onCapacity.run();
    }

    // ---------------------------------------------------------------- reading, on the reader thread

    private void readLoop() {
        String why = "closed by the origin";
        int protocolError = -1;
        int culprit = 0;
        boolean lingerAtEnd = false;
        try {
            while (readFrame()) {
                // one frame at a time
            }
        } catch (Http2Exception e) {
            why = "protocol error: " + Frames.errorName(e.code()) + " " + e.getMessage();
            protocolError = e.code();
            culprit = frames.frameStream();
            if (e.code() == Frames.ENHANCE_YOUR_CALM) {
                // The origin's abuse (a flood; OriginFloods) or an oversized header block: the operator's to know.
                log.warn("h2 upstream {}: GOAWAY ENHANCE_YOUR_CALM, {}; the connection's streams fail and the next"
                        + " request dials a new connection", name, e.getMessage());
            } else {
                log.debug("h2 upstream {}: {}", name, why);
            }
            // The GOAWAY (and the half-close after it) is a write to an origin that may not read: bounded, as the
            // linger's reads are; past it the socket is closed, which ends the write.
            try (Deadline d = Watchdog.shared().deadline(closeSocket)) {
                d.armAfter(LINGER_WRITE_NANOS);
                writer.goAway(0, e.code(), e.getMessage());
                lingerAtEnd = linger != null;
            } catch (IOException ignored) {
                // the connection is being closed anyway
            }
        } catch (IOException e) {
            why = isDead() ? "closed" : "failed: " + e.getMessage();
            if (!isDead()) {
                log.debug("h2 upstream {}: read failed: {}", name, e.toString());
            }
        } catch (RuntimeException e) {
            why = "failed: " + e;
            log.warn("h2 upstream {}: reader failed", name, e);
        }
        verdict.readerEnded();
        die(why, protocolError, culprit, lingerAtEnd);
    }

    /** The most the GOAWAY for an error and the half-close after it may take to write. */
    static final long LINGER_WRITE_NANOS = LingeringClose.PER_READ.toNanos();

    /** The connection is over: every stream fails, the socket closes, the pool hears of it. Idempotent. */
    void die(String why) {
        die(why, -1, 0, false);
    }

    /**
     * {@link #die(String)}; with {@code protocolError} (an HTTP/2 error code, or -1) when the origin's frames were a
     * connection error (a PUSH_PROMISE though push is off, an HPACK error, ...) found on stream {@code culprit}:
     * that stream fails as malformed, never retried (a reset would be, on a reused connection) and counted as an
     * invalid response. The other streams fail as the connection's end, which an idempotent request may survive
     * on another connection: they did nothing wrong. With {@code lingerAtEnd} (the reader, after our GOAWAY for an
     * error) the streams fail and the pool hears of it first, then the socket lingers ({@link #lingerOnError}) before
     * it closes.
     */
    private void die(String why, int protocolError, int culprit, boolean lingerAtEnd) {
        List<Http2ClientStream> left;
        lock.lock();
        try {
            if (deadWhy != null) {
                return;
            }
            deadWhy = why;
            left = streams.values(); // a new list
            streams.clear();
            for (Http2ClientStream s : left) {
                s.failLocked(protocolError < 0 || s.id() != culprit
                        ? new IOException("upstream connection " + name + " " + why)
                        : new Http2StreamException("upstream connection " + name + " " + why, protocolError, false,
                                true));
            }
            sendWindow.wake();
            peer.wakeLocked();
            if (pings != null) {
                pings.wakeLocked();
            }
            stalls.endLocked();
            lingering = lingerAtEnd;
        } finally {
            lock.unlock();
        }
        if (!lingerAtEnd) {
            closeSocket.run();
            onCapacity.run();
            return;
        }
        onCapacity.run();
        try {
            linger.run();
        } catch (RuntimeException e) {
            log.debug("h2 upstream {}: lingering close failed: {}", name, e.toString());
        } finally {
            closeSocket.run();
            lingering = false;
        }
    }

    /**
     * Whether the connection is lingering now, after our GOAWAY for an error ({@link #lingerOnError}): its owner
     * leaves the socket to the linger, which closes it within its bounds, or ends it sooner with {@link #close}. Set
     * before the streams fail, so a stream's thread that saw its stream fail for that error sees it.
     */
    public boolean isLingering() {
        return lingering;
    }

    /** Reads the next frame (false at the end of the input); any byte read counts as the origin's sign of life. */
    private boolean readFrame() throws IOException, Http2Exception {
        int got = frames.awaitFrame();
        if (got < 0) {
            return false;
        }
        if (pings != null) {
            pings.read();
        }
        stalls.frameBegins();
        frames.readFrame(got);
        if (!frames.inHeaderBlock()) {
            stalls.frameEnds();
        }
        return true;
    }

    /**
     * A stream's response head did not come in time. Whatever the origin does with that stream, when the reader is
     * stuck inside one frame or header block (a head trickled a byte at a time, a header block a CONTINUATION at a
     * time), no stream of the connection can get anything: the connection takes no new streams while that frame
     * lasts, and once it has been arriving for {@link StalledFrameWatch#STALLED_FRAME_NANOS} (now, or when it gets
     * that old) it is retired: it closes once the streams on it are done, and the pool dials a fresh one. A frame that
     * ends sooner leaves it in use. A socket write the origin does not take ends the connection
     * ({@link StalledWriteWatch}).
     */
    void headTimedOut() {
        stalls.headTimedOut();
        writeStall.headTimedOut();
    }

    Http2ClientStream stream(int id) {
        lock.lock();
        try {
            return streams.get(id);
        } finally {
            lock.unlock();
        }
    }

    /** The send windows of the open streams: a SETTINGS_INITIAL_WINDOW_SIZE moves them all. Under the lock. */
    List<SendWindow.Stream> openWindows() {
        List<SendWindow.Stream> open = new ArrayList<>(streams.size());
        for (Http2ClientStream s : streams.values()) {
            open.add(s.sendWindow);
        }
        return open;
    }

    /** A stream error found by the reader: the stream fails and is reset. */
    void resetFromReader(int stream, int code, String why) throws IOException {
        Http2ClientStream s;
        lock.lock();
        try {
            s = streams.get(stream);
            if (s != null) {
                removeLocked(s);
                s.failLocked(new Http2StreamException("origin sent an invalid response on stream " + stream + ": "
                        + why, code, false, true));
            }
        } finally {
            lock.unlock();
        }
        writer.rstStream(stream, code);
        if (s != null) {
            afterRemoval();
        }
    }

    // ---------------------------------------------------------------- keep-alive

    /** Under the lock: whether the connection is over. */
    boolean deadLocked() {
        return deadWhy != null;
    }

    /** A keep-alive PING. */
    void ping(byte[] payload) throws IOException {
        writer.ping(payload);
    }

    /** PINGs sent by the keep-alive. */
    public long pingsSent() {
        return pings == null ? 0 : pings.pingsSent();
    }

    /** PING ACKs the origin sent (to the keep-alive's PINGs). */
    public long pingAcks() {
        return pings == null ? 0 : pings.pingAcks();
    }

    /** What the exchange listeners keep about this connection (the tracer: its first traced attempt). */
    public ConnectionAttributes attributes() {
        return attributes;
    }

    /** The reader thread, for tests. */
    Thread readerThread() {
        return reader;
    }

    @Override
    public String toString() {
        return "h2 connection " + name;
    }
}
