package io.loomgate.http2;

import io.loomgate.http.Headers;
import io.loomgate.http.ResponseHead;
import io.loomgate.threads.ConnectionExecutors;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP/2 connection to an origin (RFC 9113, the client side), multiplexing the gateway's upstream attempts: each
 * attempt is one {@link Http2ClientStream}. One reader virtual thread per connection reads every frame and hands it
 * to its stream; request threads write their own frames (HEADERS, DATA, RST_STREAM) through the shared
 * {@link FrameWriter}.
 *
 * <p>State and threads: reader-only state (HPACK decoder, the header block being assembled, the connection receive
 * window) is plain fields. What request threads also touch (the stream map, reservations, send windows, the origin's
 * settings, going-away and dead) is guarded by {@link #lock}, a ReentrantLock never held across socket I/O, except
 * {@link #openLock}, held while a new stream's id is taken and its HEADERS written, because ids must reach the
 * wire in increasing order (RFC 9113 §5.1.1).
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
 * <p>Keep-alive ({@link #keepAlive}): a multiplexed connection may sit idle for long, and a NAT or firewall (or an
 * origin) that dropped it silently would otherwise be found only when a request fails on it. A second virtual
 * thread sends a PING after the connection was silent (no frame read) for the interval, at most one outstanding;
 * if nothing at all is read within the timeout the connection is closed, so its streams fail (and are retried as
 * the route allows) and new ones go to a fresh connection. Any frame read counts as an answer, as in grpc-java: a
 * PING ACK queued behind DATA is late but the connection is alive. A GOAWAY ENHANCE_YOUR_CALM after our PINGs
 * (gRPC servers say {@code too_many_pings}) is reported so the pool slows down for the next connection.
 */
public final class Http2ClientConnection {
    private static final Logger log = LoggerFactory.getLogger(Http2ClientConnection.class);
    /** Streams assumed allowed until the origin's SETTINGS say otherwise (RFC 9113 §6.5.2 leaves it unlimited). */
    static final int ASSUMED_MAX_CONCURRENT = 100;
    /** Response body bytes one stream may have buffered: its receive window (SETTINGS_INITIAL_WINDOW_SIZE). */
    static final int STREAM_WINDOW = 256 * 1024;
    /** The connection's receive window. */
    static final int CONNECTION_WINDOW = 16 << 20;
    private static final int HEADER_TABLE_SIZE = 4096;
    private static final int MAX_STREAM_ID = Integer.MAX_VALUE;

    private final String name;
    private final InputStream in;
    private final FrameWriter writer;
    private final Runnable closeSocket;
    private final Runnable onCapacity;
    private final int maxHeaderListSize;
    private final HpackDecoder decoder = new HpackDecoder(HEADER_TABLE_SIZE);
    final ReentrantLock lock = new ReentrantLock();
    final Condition windowOpened = lock.newCondition();
    private final ReentrantLock openLock = new ReentrantLock();
    // guarded by lock
    private final Map<Integer, Http2ClientStream> streams = new HashMap<>();
    private int reserved;
    private int nextStreamId = 1;
    private int peerMaxConcurrent = ASSUMED_MAX_CONCURRENT;
    private int peerInitialWindow = Frames.DEFAULT_WINDOW;
    private int peerMaxFrameSize = Frames.DEFAULT_MAX_FRAME_SIZE;
    int connSendWindow = Frames.DEFAULT_WINDOW;
    private boolean goingAway;
    private String deadWhy;
    private long streamsOpened;
    private long idleSinceNanos = System.nanoTime();
    private boolean settingsReceived;
    private int maxStreamBuffered;
    // reader thread only
    private int connRecvWindow = CONNECTION_WINDOW;
    private final byte[] head = new byte[Frames.HEADER_LENGTH];
    private int blockStream;
    private byte[] block;
    private int blockLength;
    private boolean blockEndStream;
    private int blockFrames;
    private Thread reader;
    // keep-alive: the reader writes lastReadNanos; the keep-alive thread waits on keepAliveWake (under lock)
    private final Condition keepAliveWake = lock.newCondition();
    private volatile long lastReadNanos = System.nanoTime();
    private volatile boolean pingOutstanding;
    private long keepAliveIntervalNanos;
    private long keepAliveTimeoutNanos;
    private java.util.function.LongConsumer onTooManyPings = interval -> { };
    private long pingsSent; // guarded by lock
    private long pingAcks; // guarded by lock

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
        this.name = name;
        this.in = in;
        this.writer = new FrameWriter(out);
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
        if (intervalNanos <= 0 || timeoutNanos <= 0) {
            throw new IllegalArgumentException("keep-alive interval and timeout must be positive");
        }
        this.keepAliveIntervalNanos = intervalNanos;
        this.keepAliveTimeoutNanos = timeoutNanos;
        this.onTooManyPings = onTooManyPings;
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
        if (keepAliveIntervalNanos > 0) {
            ConnectionExecutors.startVirtual("h2-upstream-keepalive-" + name, this::keepAliveLoop);
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
            while (!settingsReceived) {
                if (deadWhy != null) {
                    throw new IOException("upstream connection " + name + " " + deadWhy);
                }
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                try {
                    windowOpened.awaitNanos(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException("interrupted while waiting for SETTINGS from " + name);
                }
            }
            if (settingsReceived) {
                return;
            }
        } finally {
            lock.unlock();
        }
        close("no SETTINGS in time");
        throw new java.net.SocketTimeoutException("origin " + name + " sent no SETTINGS within the connect timeout");
    }

    // ---------------------------------------------------------------- capacity, for the pool

    /** Reserves a slot for one stream; false when the connection is full, going away or dead. */
    public boolean tryReserve() {
        lock.lock();
        try {
            if (deadWhy != null || goingAway || nextStreamId + 2L * reserved >= MAX_STREAM_ID
                    || streams.size() + reserved >= peerMaxConcurrent) {
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
        lock.lock();
        try {
            return peerMaxConcurrent;
        } finally {
            lock.unlock();
        }
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
     * down). Idempotent.
     */
    public void goAway() {
        lock.lock();
        try {
            goingAway = true;
        } finally {
            lock.unlock();
        }
        afterRemoval();
    }

    /** Ends the connection now: GOAWAY, the socket closed, every stream on it failed. Idempotent. */
    public void close(String why) {
        try {
            writeUninterrupted(() -> writer.goAway(0, Frames.NO_ERROR, why));
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
        HeaderBlock out = new HeaderBlock(64 + fields.size() * 32);
        HpackEncoder.field(out, ":method", method);
        HpackEncoder.field(out, ":scheme", scheme);
        HpackEncoder.field(out, ":authority", authority);
        HpackEncoder.field(out, ":path", path);
        for (int i = 0; i < fields.size(); i++) {
            String n = fields.name(i).toLowerCase(Locale.ROOT);
            switch (n) {
                case "host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te",
                     "http2-settings" -> {
                    // Host is :authority; the rest are connection-specific (RFC 9113 §8.2.2); TE is added below
                }
                default -> HpackEncoder.field(out, n, fields.value(i));
            }
        }
        // The gateway passes response trailers on (gRPC needs them), so it may say it accepts them.
        HpackEncoder.field(out, "te", "trailers");
        byte[] block = out.toByteArray();
        Http2ClientStream s;
        int frameSize;
        openLock.lock();
        try {
            lock.lock();
            try {
                reserved--;
                if (deadWhy != null) {
                    throw new IOException("upstream connection " + name + " " + deadWhy);
                }
                int id = nextStreamId;
                nextStreamId += 2;
                s = new Http2ClientStream(this, id, peerInitialWindow, STREAM_WINDOW, endStream);
                streams.put(id, s);
                streamsOpened++;
                frameSize = peerMaxFrameSize;
            } finally {
                lock.unlock();
            }
            int streamId = s.id();
            int maxFrame = frameSize;
            try {
                writeUninterrupted(() -> writer.headers(streamId, block, maxFrame, endStream));
            } catch (IOException e) {
                die("write failed: " + e.getMessage());
                throw e;
            }
        } finally {
            openLock.unlock();
        }
        return s;
    }

    int peerMaxFrameSize() {
        lock.lock();
        try {
            return peerMaxFrameSize;
        } finally {
            lock.unlock();
        }
    }

    void writeData(int stream, byte[] b, int off, int len, boolean endStream) throws IOException {
        writeUninterrupted(() -> writer.data(stream, b, off, len, endStream));
    }

    void writeTrailers(int stream, Headers trailers) throws IOException {
        HeaderBlock out = new HeaderBlock(64);
        for (int i = 0; i < trailers.size(); i++) {
            String n = trailers.name(i).toLowerCase(Locale.ROOT);
            if (!n.isEmpty() && n.charAt(0) != ':') {
                HpackEncoder.field(out, n, trailers.value(i));
            }
        }
        byte[] block = out.toByteArray();
        int frameSize = peerMaxFrameSize();
        writeUninterrupted(() -> writer.headers(stream, block, frameSize, true));
    }

    void writeWindowUpdate(int stream, int credit) throws IOException {
        writeUninterrupted(() -> writer.windowUpdate(stream, credit));
    }

    void writeReset(int stream, int code) throws IOException {
        writeUninterrupted(() -> writer.rstStream(stream, code));
    }

    /** A socket write of one frame. */
    @FunctionalInterface
    private interface FrameWrite {
        void write() throws IOException;
    }

    /**
     * Writes with the calling thread's interrupt status cleared for the duration: the socket is shared by every
     * stream of the connection, and a virtual thread interrupted while blocked in a socket write closes the socket
     * (a downstream client's RST_STREAM interrupts its request thread). The status is restored afterwards.
     */
    private void writeUninterrupted(FrameWrite write) throws IOException {
        boolean interrupted = Thread.interrupted();
        try {
            write.write();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
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
        try {
            while (readFrame()) {
                // one frame at a time
            }
        } catch (Http2Exception e) {
            why = "protocol error: " + Frames.errorName(e.code()) + " " + e.getMessage();
            log.debug("h2 upstream {}: {}", name, why);
            try {
                writer.goAway(0, e.code(), e.getMessage());
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
        die(why);
    }

    /** The connection is over: every stream fails, the socket closes, the pool hears of it. Idempotent. */
    private void die(String why) {
        List<Http2ClientStream> left;
        lock.lock();
        try {
            if (deadWhy != null) {
                return;
            }
            deadWhy = why;
            left = new ArrayList<>(streams.values());
            streams.clear();
            for (Http2ClientStream s : left) {
                s.failLocked(new IOException("upstream connection " + name + " " + why));
            }
            windowOpened.signalAll();
            keepAliveWake.signalAll();
        } finally {
            lock.unlock();
        }
        closeSocket.run();
        onCapacity.run();
    }

    private void readFully(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            int n = in.read(b, off, len);
            if (n < 0) {
                throw new EOFException("connection closed by the origin");
            }
            off += n;
            len -= n;
        }
    }

    private boolean readFrame() throws IOException, Http2Exception {
        int got = in.read(head, 0, Frames.HEADER_LENGTH);
        if (got < 0) {
            return false;
        }
        readFully(head, got, Frames.HEADER_LENGTH - got);
        lastReadNanos = System.nanoTime();
        if (pingOutstanding) {
            answered();
        }
        int length = ((head[0] & 0xff) << 16) | ((head[1] & 0xff) << 8) | (head[2] & 0xff);
        int type = head[3] & 0xff;
        int flags = head[4] & 0xff;
        int stream = ((head[5] & 0x7f) << 24) | ((head[6] & 0xff) << 16) | ((head[7] & 0xff) << 8) | (head[8] & 0xff);
        if (length > Frames.DEFAULT_MAX_FRAME_SIZE) {
            throw Http2Exception.connection(Frames.FRAME_SIZE_ERROR, "frame of " + length + " bytes");
        }
        byte[] payload = length == 0 ? EMPTY : new byte[length];
        readFully(payload, 0, length);
        if (block != null && type != Frames.CONTINUATION) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "header block interrupted by frame type " + type);
        }
        try {
            switch (type) {
                case Frames.DATA -> onData(stream, flags, payload);
                case Frames.HEADERS -> onHeaders(stream, flags, payload);
                case Frames.CONTINUATION -> onContinuation(stream, flags, payload);
                case Frames.RST_STREAM -> onRstStream(stream, payload);
                case Frames.SETTINGS -> onSettings(stream, flags, payload);
                case Frames.PING -> onPing(stream, flags, payload);
                case Frames.GOAWAY -> onGoAway(stream, payload);
                case Frames.WINDOW_UPDATE -> onWindowUpdate(stream, payload);
                case Frames.PUSH_PROMISE -> throw Http2Exception.connection(Frames.PROTOCOL_ERROR,
                        "PUSH_PROMISE although SETTINGS_ENABLE_PUSH is 0");
                default -> {
                    // PRIORITY and unknown types are ignored (RFC 9113 §5.3.2, §5.5)
                }
            }
        } catch (Http2Exception e) {
            if (e.isConnectionError()) {
                throw e;
            }
            resetFromReader(e.streamId(), e.code(), e.getMessage());
        }
        return true;
    }

    private static final byte[] EMPTY = new byte[0];

    private Http2ClientStream stream(int id) {
        lock.lock();
        try {
            return streams.get(id);
        } finally {
            lock.unlock();
        }
    }

    private boolean isIdle(int stream) {
        lock.lock();
        try {
            return stream >= nextStreamId;
        } finally {
            lock.unlock();
        }
    }

    private static int padding(int flags, byte[] payload) throws Http2Exception {
        if ((flags & Frames.FLAG_PADDED) == 0) {
            return 0;
        }
        if (payload.length < 1 || (payload[0] & 0xff) >= payload.length) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "invalid padding");
        }
        return payload[0] & 0xff;
    }

    private void onData(int stream, int flags, byte[] payload) throws Http2Exception, IOException {
        if (stream == 0 || (stream & 1) == 0 || isIdle(stream)) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "DATA on stream " + stream);
        }
        int padding = padding(flags, payload);
        connRecvWindow -= payload.length;
        if (connRecvWindow < 0) {
            throw Http2Exception.connection(Frames.FLOW_CONTROL_ERROR, "DATA beyond the connection window");
        }
        if (connRecvWindow <= CONNECTION_WINDOW / 2) {
            writer.windowUpdate(0, CONNECTION_WINDOW - connRecvWindow);
            connRecvWindow = CONNECTION_WINDOW;
        }
        boolean endStream = (flags & Frames.FLAG_END_STREAM) != 0;
        int off = (flags & Frames.FLAG_PADDED) != 0 ? 1 : 0;
        int len = payload.length - off - padding;
        boolean done;
        int paddingCredit;
        Http2ClientStream s;
        lock.lock();
        try {
            s = streams.get(stream);
            if (s == null) {
                // Reset by us a moment ago: frames in flight are expected (RFC 9113 §6.4). Its window is gone with it.
                return;
            }
            s.deliverDataLocked(payload, off, len, endStream);
            paddingCredit = endStream ? 0 : payload.length - len;
            done = s.closedBothLocked();
            if (done) {
                removeLocked(s);
            }
        } finally {
            lock.unlock();
        }
        if (paddingCredit > 0) {
            writer.windowUpdate(stream, paddingCredit);
        }
        if (done) {
            afterRemoval();
        }
    }

    private void onHeaders(int stream, int flags, byte[] payload) throws Http2Exception, IOException {
        if (stream == 0 || (stream & 1) == 0 || isIdle(stream)) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "HEADERS on stream " + stream);
        }
        int padding = padding(flags, payload);
        int off = (flags & Frames.FLAG_PADDED) != 0 ? 1 : 0;
        if ((flags & Frames.FLAG_PRIORITY) != 0) {
            off += 5;
        }
        int len = payload.length - off - padding;
        if (len < 0) {
            throw Http2Exception.connection(Frames.FRAME_SIZE_ERROR, "HEADERS too short");
        }
        if (len > maxHeaderListSize + 1024) {
            throw Http2Exception.connection(Frames.ENHANCE_YOUR_CALM, "header block over " + maxHeaderListSize);
        }
        blockStream = stream;
        block = java.util.Arrays.copyOfRange(payload, off, off + len);
        blockLength = len;
        blockEndStream = (flags & Frames.FLAG_END_STREAM) != 0;
        blockFrames = 1;
        if ((flags & Frames.FLAG_END_HEADERS) != 0) {
            endBlock();
        }
    }

    private void onContinuation(int stream, int flags, byte[] payload) throws Http2Exception, IOException {
        if (block == null || stream != blockStream) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "CONTINUATION out of place");
        }
        if (++blockFrames > Http2Connection.MAX_CONTINUATIONS
                || blockLength + payload.length > maxHeaderListSize + 1024) {
            throw Http2Exception.connection(Frames.ENHANCE_YOUR_CALM, "header block too large");
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

    /** A whole response header block: the head (interim or final) or the trailers of its stream. */
    private void endBlock() throws Http2Exception, IOException {
        int stream = blockStream;
        byte[] b = block;
        int len = blockLength;
        boolean endStream = blockEndStream;
        block = null;
        Http2ClientStream s = stream(stream);
        boolean isTrailers = s != null && s.finalHeadSeen();
        ResponseFields fields = new ResponseFields(isTrailers);
        boolean withinLimit;
        try {
            withinLimit = decoder.decode(b, len, maxHeaderListSize, fields); // always, to keep HPACK in step
        } catch (HpackException e) {
            throw Http2Exception.connection(Frames.COMPRESSION_ERROR, e.getMessage());
        }
        if (s == null) {
            return; // a stream we reset: its head is of no use, but the block had to be decoded
        }
        if (!withinLimit) {
            throw Http2Exception.stream(stream, Frames.PROTOCOL_ERROR, "response head over "
                    + maxHeaderListSize + " bytes");
        }
        boolean done;
        lock.lock();
        try {
            if (isTrailers) {
                if (!endStream) {
                    throw Http2Exception.stream(stream, Frames.PROTOCOL_ERROR, "trailers without END_STREAM");
                }
                s.deliverTrailersLocked(fields.toTrailers(stream));
            } else {
                ResponseHead h = fields.toResponse(stream);
                if (h.isInformational() && (endStream || h.status() == 101)) {
                    throw Http2Exception.stream(stream, Frames.PROTOCOL_ERROR, "informational "
                            + h.status() + " ending the stream or switching protocols");
                }
                s.deliverHeadLocked(h, endStream);
            }
            done = s.closedBothLocked();
            if (done) {
                removeLocked(s);
            }
        } finally {
            lock.unlock();
        }
        if (done) {
            afterRemoval();
        }
    }

    private void onRstStream(int stream, byte[] payload) throws Http2Exception {
        if (stream == 0 || payload.length != 4) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "invalid RST_STREAM");
        }
        int code = Frames.getInt(payload, 0);
        Http2ClientStream s;
        lock.lock();
        try {
            s = streams.get(stream);
            if (s == null) {
                return;
            }
            removeLocked(s);
            if (code == Frames.NO_ERROR && s.finalHeadSeen()) {
                // RFC 9113 §8.1: the origin answered and does not need the rest of the request body.
                s.stopRequestLocked();
            } else {
                s.failLocked(new Http2StreamException("origin reset stream " + stream + " with "
                        + Frames.errorName(code), code, code == Frames.REFUSED_STREAM));
            }
            windowOpened.signalAll();
        } finally {
            lock.unlock();
        }
        afterRemoval();
    }

    private void onSettings(int stream, int flags, byte[] payload) throws Http2Exception, IOException {
        if (stream != 0) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "SETTINGS on stream " + stream);
        }
        if ((flags & Frames.FLAG_ACK) != 0) {
            return;
        }
        if (payload.length % 6 != 0) {
            throw Http2Exception.connection(Frames.FRAME_SIZE_ERROR, "SETTINGS of " + payload.length + " bytes");
        }
        int concurrentBefore = peerMaxConcurrent();
        writer.applyAndAcknowledge(() -> applySettings(payload));
        if (peerMaxConcurrent() > concurrentBefore) {
            onCapacity.run();
        }
    }

    /** The peer's SETTINGS values in order, under the writer's lock (see FrameWriter#applyAndAcknowledge). */
    private void applySettings(byte[] payload) throws Http2Exception {
        lock.lock();
        try {
            for (int i = 0; i < payload.length; i += 6) {
                int key = ((payload[i] & 0xff) << 8) | (payload[i + 1] & 0xff);
                long value = Frames.getInt(payload, i + 2) & 0xffffffffL;
                switch (key) {
                    case Frames.SETTINGS_MAX_CONCURRENT_STREAMS ->
                            peerMaxConcurrent = (int) Math.min(value, Integer.MAX_VALUE);
                    case Frames.SETTINGS_INITIAL_WINDOW_SIZE -> {
                        if (value > Frames.MAX_WINDOW) {
                            throw Http2Exception.connection(Frames.FLOW_CONTROL_ERROR, "initial window over 2^31-1");
                        }
                        int delta = (int) value - peerInitialWindow;
                        for (Http2ClientStream s : streams.values()) {
                            s.sendWindow += delta;
                        }
                        peerInitialWindow = (int) value;
                        windowOpened.signalAll();
                    }
                    case Frames.SETTINGS_MAX_FRAME_SIZE -> {
                        if (value < Frames.DEFAULT_MAX_FRAME_SIZE || value > 0xffffff) {
                            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "SETTINGS_MAX_FRAME_SIZE " + value);
                        }
                        peerMaxFrameSize = (int) value;
                    }
                    default -> {
                        // HEADER_TABLE_SIZE: our encoder uses no dynamic table; the rest are advisory or unknown
                    }
                }
            }
            settingsReceived = true;
            windowOpened.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private int peerMaxConcurrent() {
        lock.lock();
        try {
            return peerMaxConcurrent;
        } finally {
            lock.unlock();
        }
    }

    private void onPing(int stream, int flags, byte[] payload) throws Http2Exception, IOException {
        if (stream != 0 || payload.length != 8) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "invalid PING");
        }
        if ((flags & Frames.FLAG_ACK) == 0) {
            writer.pingAck(payload);
        } else {
            lock.lock();
            try {
                pingAcks++;
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * GOAWAY: no new streams here. Streams above the origin's last stream id were never processed: they fail as
     * refused (safe to send again); the others finish, then the connection closes (RFC 9113 §6.8).
     */
    private void onGoAway(int stream, byte[] payload) throws Http2Exception {
        if (stream != 0 || payload.length < 8) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "invalid GOAWAY");
        }
        int last = Frames.getInt(payload, 0) & 0x7fffffff;
        int code = Frames.getInt(payload, 4);
        log.debug("h2 upstream {}: GOAWAY last stream {} {}", name, last, Frames.errorName(code));
        boolean calmDown;
        lock.lock();
        try {
            calmDown = code == Frames.ENHANCE_YOUR_CALM && pingsSent > 0;
            goingAway = true;
            for (Http2ClientStream s : new ArrayList<>(streams.values())) {
                if (s.id() > last) {
                    removeLocked(s);
                    s.failLocked(new Http2StreamException("origin sent GOAWAY (" + Frames.errorName(code)
                            + ") before processing stream " + s.id(), Frames.REFUSED_STREAM, true));
                }
            }
            windowOpened.signalAll();
        } finally {
            lock.unlock();
        }
        if (calmDown) {
            String debug = new String(payload, 8, payload.length - 8, java.nio.charset.StandardCharsets.UTF_8);
            log.warn("h2 upstream {}: the origin sent GOAWAY ENHANCE_YOUR_CALM ({}) after our keep-alive PINGs "
                    + "every {}ms", name, debug, TimeUnit.NANOSECONDS.toMillis(keepAliveIntervalNanos));
            onTooManyPings.accept(keepAliveIntervalNanos);
        }
        afterRemoval();
    }

    private void onWindowUpdate(int stream, byte[] payload) throws Http2Exception {
        if (payload.length != 4) {
            throw Http2Exception.connection(Frames.FRAME_SIZE_ERROR, "WINDOW_UPDATE of " + payload.length + " bytes");
        }
        int increment = Frames.getInt(payload, 0) & 0x7fffffff;
        if (increment == 0) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "WINDOW_UPDATE of 0");
        }
        lock.lock();
        try {
            if (stream == 0) {
                if ((long) connSendWindow + increment > Frames.MAX_WINDOW) {
                    throw Http2Exception.connection(Frames.FLOW_CONTROL_ERROR, "connection window over 2^31-1");
                }
                connSendWindow += increment;
            } else {
                Http2ClientStream s = streams.get(stream);
                if (s == null) {
                    return;
                }
                if ((long) s.sendWindow + increment > Frames.MAX_WINDOW) {
                    throw Http2Exception.stream(stream, Frames.FLOW_CONTROL_ERROR, "stream window over 2^31-1");
                }
                s.sendWindow += increment;
            }
            windowOpened.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** A stream error found by the reader: the stream fails and is reset. */
    private void resetFromReader(int stream, int code, String why) throws IOException {
        Http2ClientStream s;
        lock.lock();
        try {
            s = streams.get(stream);
            if (s != null) {
                removeLocked(s);
                s.failLocked(new Http2StreamException("origin sent an invalid response on stream " + stream + ": "
                        + why, code, false));
            }
        } finally {
            lock.unlock();
        }
        writer.rstStream(stream, code);
        if (s != null) {
            afterRemoval();
        }
    }

    // ---------------------------------------------------------------- keep-alive, on its own thread

    /** The reader read a frame while a PING was outstanding: wake the keep-alive thread. */
    private void answered() {
        lock.lock();
        try {
            pingOutstanding = false;
            keepAliveWake.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Until the connection dies: waits for {@code interval} of silence, sends a PING, and closes the connection if
     * nothing is read within the timeout. One PING at most in flight, so the origin never sees more than one per
     * interval.
     */
    private void keepAliveLoop() {
        byte[] payload = new byte[8];
        try {
            while (true) {
                lock.lock();
                try {
                    long quietLeft;
                    while (deadWhy == null
                            && (quietLeft = lastReadNanos + keepAliveIntervalNanos - System.nanoTime()) > 0) {
                        keepAliveWake.awaitNanos(quietLeft);
                    }
                    if (deadWhy != null) {
                        return;
                    }
                    pingsSent++;
                    pingOutstanding = true;
                    FrameWriter.putInt(payload, 4, (int) pingsSent);
                } finally {
                    lock.unlock();
                }
                long sentAt = System.nanoTime();
                writeUninterrupted(() -> writer.ping(payload));
                boolean alive;
                lock.lock();
                try {
                    long left;
                    while (deadWhy == null && lastReadNanos - sentAt < 0
                            && (left = sentAt + keepAliveTimeoutNanos - System.nanoTime()) > 0) {
                        keepAliveWake.awaitNanos(left);
                    }
                    if (deadWhy != null) {
                        return;
                    }
                    alive = lastReadNanos - sentAt >= 0;
                    pingOutstanding = false;
                } finally {
                    lock.unlock();
                }
                if (!alive) {
                    String why = "no answer to a keep-alive PING within "
                            + TimeUnit.NANOSECONDS.toMillis(keepAliveTimeoutNanos) + "ms";
                    log.warn("h2 upstream {}: {}; closing it (its streams fail, new ones use another connection)",
                            name, why);
                    // No GOAWAY first: a write to a connection that stopped answering may block; closing the
                    // socket cannot, and it also ends any write stuck on it.
                    die("closed: " + why);
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            die("keep-alive PING write failed: " + e.getMessage());
        }
    }

    /** PINGs sent by the keep-alive, and PING ACKs read. */
    public long pingsSent() {
        lock.lock();
        try {
            return pingsSent;
        } finally {
            lock.unlock();
        }
    }

    /** PING ACKs the origin sent. */
    public long pingAcks() {
        lock.lock();
        try {
            return pingAcks;
        } finally {
            lock.unlock();
        }
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
