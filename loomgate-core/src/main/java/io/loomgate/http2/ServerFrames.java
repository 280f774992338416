package io.loomgate.http2;

import io.loomgate.http.Headers;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import io.loomgate.threads.ConnectionExecutors;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an {@link Http2Connection} (the server role) does with the frames its {@link FrameReader} reads: a request
 * opens a stream, admitted under the limits (stream ids in order, SETTINGS_MAX_CONCURRENT_STREAMS, streams per
 * connection, content-length, a 431 for a header list over the limit) and served on a virtual thread of its own;
 * DATA and trailers feed its request body, or are thrown away for a stream answered early (the connection then
 * discards its rest) and ignored on a stream we reset lately ({@link ResetStreams}); resets of open streams (the
 * client's, and those its stream errors make us send) are counted against Rapid Reset and MadeYouReset; SETTINGS,
 * PINGs, PRIORITY, empty DATA frames and the RST_STREAMs that frames on closed streams cost us against the
 * control-frame floods; WINDOW_UPDATEs against the DATA frames we sent. The stream table, the windows and the
 * connection's end are the connection's.
 *
 * <p>Reader thread only, except what a stream's thread does when its handler returns ({@link #afterHandler}).
 */
final class ServerFrames implements FrameReader.Handler<RequestFields> {
    private static final Logger log = LoggerFactory.getLogger(ServerFrames.class);
    /** WINDOW_UPDATE frames a client may send per DATA frame we sent (Envoy's default, see {@link #windowUpdate}). */
    static final int WINDOW_UPDATES_PER_DATA_FRAME = 10;

    private final Http2Connection conn;
    private final long id;
    private final Http2Settings settings;
    private final int maxHeaderCount;
    private final StreamHandler handler;
    private final RateLimit control;
    /** Made at the first stream reset: most connections never see one. */
    private RateLimit resets;
    /** The stream a HEADERS frame is opening now, until it is open or refused (see {@link #streamError}). */
    private int opening;
    /** WINDOW_UPDATE frames the client sent: bounded by the DATA frames we sent (see {@link #windowUpdate}). */
    private long windowUpdates;
    /** Volatile: the GOAWAY of a drain (any thread) names it. */
    private volatile int lastStreamId;
    private int streamsOpened;

    ServerFrames(Http2Connection conn, long id, Http2Settings settings, int maxHeaderCount, StreamHandler handler) {
        this.conn = conn;
        this.id = id;
        this.settings = settings;
        this.maxHeaderCount = maxHeaderCount;
        this.handler = handler;
        this.control = new RateLimit(2 * settings.maxControlPerSecond(), settings.maxControlPerSecond());
    }

    /** The last stream the client opened (0 before the first): what a GOAWAY says was, or may be, processed. */
    int lastStreamId() {
        return lastStreamId;
    }

    /** Streams the client opened on this connection. */
    int streamsOpened() {
        return streamsOpened;
    }

    /** Whether a client stream id was never opened (RFC 9113 §5.1: idle). */
    @Override
    public boolean isIdle(int stream) {
        return stream > lastStreamId;
    }

    @Override
    public void data(int stream, byte[] payload, int off, int len, boolean endStream)
            throws Http2Exception, IOException {
        if (len == 0 && !endStream && !control.tryAcquire()) {
            // An empty DATA frame carries nothing and ends nothing: a stream of them is only work for the reader
            // (CVE-2019-9518), so they count as control frames.
            throw Http2Exception.connection(Frames.ENHANCE_YOUR_CALM, "empty DATA flood");
        }
        int credit;
        Http2Stream over = null;
        conn.lock.lock();
        try {
            Http2Stream s = conn.streamLocked(stream);
            if (s == null || s.remoteClosed() || s.isReset()) {
                if (s == null && conn.absorbsDataLocked(stream, payload.length, endStream)) {
                    // In flight when we reset the stream: ignored (RFC 9113 §5.1); the reader has counted it against
                    // the connection's window and gives that credit back as for any DATA.
                    return;
                }
                throw Http2Exception.stream(stream, Frames.STREAM_CLOSED, "DATA on closed stream " + stream);
            }
            credit = s.deliverData(payload, off, len, endStream);
            if (s.discardingLocked()) {
                // Answered early, its handler gone: the rest is thrown away here, its window reopened.
                long now = System.nanoTime();
                credit += s.discardDataLocked(len, now);
                if (!endStream && s.discardOverLocked(now)) {
                    over = s;
                }
            }
            if (endStream) {
                conn.closeIfDone(s);
            }
        } finally {
            conn.lock.unlock();
        }
        if (credit > 0) {
            conn.writer.windowUpdate(stream, credit);
        }
        if (over != null) {
            conn.discardBoundPassed(over);
        }
    }

    @Override
    public RequestFields fieldsFor(int stream, int blockFields) {
        return new RequestFields(!isIdle(stream), blockFields);
    }

    /** A whole header block: a request opening a stream, or the trailers ending one. */
    @Override
    public void headers(int stream, RequestFields fields, boolean withinLimit, boolean endStream,
                        boolean selfDependent) throws Http2Exception {
        if (isIdle(stream)) {
            open(stream, fields, withinLimit, endStream, selfDependent);
        } else {
            trailers(stream, fields, withinLimit, endStream);
        }
    }

    /** The client reset a stream: its handler's work upstream is cancelled; too many resets are Rapid Reset. */
    @Override
    public void rstStream(int stream, int code) throws Http2Exception {
        if (conn.resetByClient(stream)) {
            // Rapid Reset (CVE-2023-44487): streams opened and cancelled faster than any real client does.
            countReset("too many stream resets");
        }
        conn.endOutputIfDone();
    }

    /**
     * A reset stream, whichever side sent RST_STREAM: over the rate, the connection ends. Made at the first one: most
     * connections never see a reset.
     */
    private void countReset(String why) throws Http2Exception {
        if (resets == null) {
            resets = new RateLimit(2 * settings.maxResetsPerSecond(), settings.maxResetsPerSecond());
        }
        if (!resets.tryAcquire()) {
            throw Http2Exception.connection(Frames.ENHANCE_YOUR_CALM, why);
        }
    }

    @Override
    public void settings(byte[] payload) throws Http2Exception, IOException {
        if (!control.tryAcquire()) {
            throw Http2Exception.connection(Frames.ENHANCE_YOUR_CALM, "SETTINGS flood");
        }
        conn.writer.applyAndAcknowledge(() -> conn.peer.apply(payload, conn::openWindows));
    }

    /**
     * Counted as the other control frames: the gateway sends a client one SETTINGS (two with a change) and no PING, so
     * any ACK past those is unsolicited, read for nothing, and before session 61 a client could send them without end
     * (20,000 PING ACKs or SETTINGS ACKs: no GOAWAY, the connection kept).
     */
    @Override
    public void settingsAck() throws Http2Exception {
        if (!control.tryAcquire()) {
            throw Http2Exception.connection(Frames.ENHANCE_YOUR_CALM, "SETTINGS ACK flood");
        }
    }

    @Override
    public void ping(boolean ack, byte[] payload) throws Http2Exception, IOException {
        if (!control.tryAcquire()) {
            throw Http2Exception.connection(Frames.ENHANCE_YOUR_CALM, ack ? "PING ACK flood" : "PING flood");
        }
        if (!ack) {
            conn.writer.pingAck(payload); // an ACK asks nothing: counted above (see settingsAck), then dropped
        }
    }

    /** The client opens no more streams; those in flight finish, then the connection closes. */
    @Override
    public void goAway(int last, int code, byte[] payload) {
        conn.goAwayReceived();
    }

    /**
     * A WINDOW_UPDATE with a valid increment. A client sends them as it reads our DATA, so their number is bounded by
     * the DATA frames we sent, as Envoy bounds it ({@code max_inbound_window_update_frames_per_data_frame_sent}, 10):
     * at most 1 + 2 x (streams opened + 10 x DATA frames sent) over the connection's life; past that they only cost
     * the reader (each one a frame, a lock and a window's arithmetic), so GOAWAY ENHANCE_YOUR_CALM.
     */
    @Override
    public void windowUpdate(int stream, int increment) throws Http2Exception {
        // Applied first: a window taken past 2^31-1 is the FLOW_CONTROL_ERROR it is (h2spec 6.9.1 sends two such
        // updates before any stream), whatever the count says.
        try {
            applyWindowUpdate(stream, increment);
        } finally {
            windowUpdates++;
        }
        if (windowUpdates > 1 + 2L * streamsOpened && windowUpdates > windowUpdateAllowance()) {
            throw Http2Exception.connection(Frames.ENHANCE_YOUR_CALM, "WINDOW_UPDATE flood");
        }
    }

    private void applyWindowUpdate(int stream, int increment) throws Http2Exception {
        if (stream == 0) {
            conn.sendWindow.connectionUpdate(increment);
            return;
        }
        conn.lock.lock();
        try {
            Http2Stream s = conn.streamLocked(stream);
            if (s != null) { // else a stream that has just closed: frames in flight are expected (RFC 9113 §6.9)
                conn.sendWindow.streamUpdate(s.sendWindow, stream, increment);
            }
        } finally {
            conn.lock.unlock();
        }
    }

    /**
     * A stream error in the client's frames resets the stream. When that stream was open, its handler's work is
     * cancelled as by the client's own RST_STREAM, so it counts as one: otherwise a client could open and have us
     * cancel streams at any rate by sending, say, WINDOW_UPDATE of 0 after each request (MadeYouReset,
     * CVE-2025-8671), past the Rapid Reset defence. A stream refused as its HEADERS open it (REFUSED_STREAM past
     * SETTINGS_MAX_CONCURRENT_STREAMS or after GOAWAY, a malformed request) counts as a reset too: it is a stream
     * opened and reset at once, which costs us a header block's decoding and a RST_STREAM and the client nothing, the
     * shape of Rapid Reset with the reset ours (nghttp2 counts such stream errors as "glitches", Envoy resets past the
     * concurrency limit as premature resets). Before, only {@code max-streams-per-connection} bounded them.
     */
    @Override
    public void streamError(int stream, int code, String why) throws Http2Exception, IOException {
        boolean refusesNew = stream == opening;
        opening = 0;
        if (conn.resetFromReader(stream, code, why, refusesNew)) {
            countReset("too many stream errors");
        } else if (refusesNew) {
            countReset(code == Frames.REFUSED_STREAM ? "too many refused streams" : "too many malformed requests");
        } else if (!control.tryAcquire()) {
            // A frame on a stream that is closed (and not one we reset lately, whose frames in flight are ignored):
            // each is answered with RST_STREAM, which costs us a frame as PING does, so they count as control frames.
            throw Http2Exception.connection(Frames.ENHANCE_YOUR_CALM, "frames on closed streams");
        }
    }

    /** WINDOW_UPDATE frames the client may have sent so far (see {@link #windowUpdate}). */
    private long windowUpdateAllowance() {
        long sent;
        conn.lock.lock();
        try {
            sent = conn.dataFramesSent;
        } finally {
            conn.lock.unlock();
        }
        return 1 + 2 * (streamsOpened + WINDOW_UPDATES_PER_DATA_FRAME * sent);
    }

    /** PRIORITY frames are ignored (RFC 9113 §5.3.2), so a stream of them is only work (CVE-2019-9513's vector). */
    @Override
    public void priority(int stream) throws Http2Exception {
        if (!control.tryAcquire()) {
            throw Http2Exception.connection(Frames.ENHANCE_YOUR_CALM, "PRIORITY flood");
        }
    }

    /** A request's trailers: the client's side of the stream ends. */
    private void trailers(int stream, RequestFields fields, boolean withinLimit, boolean endStream)
            throws Http2Exception {
        Http2Stream existing;
        conn.lock.lock();
        try {
            existing = conn.streamLocked(stream);
            if (existing == null && conn.absorbsTrailersLocked(stream)) {
                return; // sent before our RST_STREAM reached the client: ignored (RFC 9113 §5.1), once
            }
            if (existing == null || existing.remoteClosed() || existing.isReset()) {
                // The client ended this stream (or it is gone): HEADERS now would reopen it. A connection error
                // (RFC 9113 §5.4.1 allows it for a stream error too) whether or not our response has quite ended.
                throw Http2Exception.connection(Frames.STREAM_CLOSED, "HEADERS on closed stream " + stream);
            }
        } finally {
            conn.lock.unlock();
        }
        if (!endStream) {
            throw Http2Exception.stream(stream, Frames.PROTOCOL_ERROR, "trailers without END_STREAM (RFC 9113 §8.1)");
        }
        Headers trailers = fields.toTrailers(stream);
        if (!withinLimit) {
            throw Http2Exception.stream(stream, Frames.PROTOCOL_ERROR, "trailers over the header list limit");
        }
        conn.lock.lock();
        try {
            existing.deliverTrailers(trailers);
            conn.closeIfDone(existing);
        } finally {
            conn.lock.unlock();
        }
    }

    /** A request on a new stream: admitted (a handler thread), refused, or answered 431. */
    private void open(int stream, RequestFields fields, boolean withinLimit, boolean endStream,
                      boolean selfDependent) throws Http2Exception {
        if ((stream & 1) == 0) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "even stream id " + stream + " from a client");
        }
        opening = stream; // a stream error from here on refuses this new stream
        openAdmitted(stream, fields, withinLimit, endStream, selfDependent);
        opening = 0;
    }

    private void openAdmitted(int stream, RequestFields fields, boolean withinLimit, boolean endStream,
                              boolean selfDependent) throws Http2Exception {
        lastStreamId = stream;
        streamsOpened++;
        if (selfDependent) {
            throw Http2Exception.stream(stream, Frames.PROTOCOL_ERROR, "stream depends on itself (RFC 9113 §5.3.1)");
        }
        RequestHead request = fields.toRequest(stream);
        boolean last = streamsOpened >= settings.maxStreamsPerConnection();
        if (!conn.mayOpen(settings.maxConcurrentStreams())) {
            throw Http2Exception.stream(stream, Frames.REFUSED_STREAM, "over SETTINGS_MAX_CONCURRENT_STREAMS or"
                    + " after GOAWAY");
        }
        long contentLength = contentLength(stream, request.headers());
        if (endStream && contentLength > 0) {
            throw Http2Exception.stream(stream, Frames.PROTOCOL_ERROR, "content-length without DATA");
        }
        Http2Stream s = new Http2Stream(conn, stream, streamsOpened - 1, request, contentLength, endStream,
                settings.initialWindowSize());
        conn.add(s); // counted as a running handler: every stream added gets a handler thread below
        if (!withinLimit || request.headers().size() > maxHeaderCount) {
            // HPACK bomb or simply too many fields: the table is in step, so only this request is refused.
            refuseWith431(s);
        } else {
            s.thread = ConnectionExecutors.startVirtual("h2-" + id + "-" + stream, () -> runStream(s));
        }
        if (last) {
            // Stream-id exhaustion: a long-lived connection is asked to make way for a new one.
            conn.drain();
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
                byte[] body = "request header fields too large\n".getBytes(StandardCharsets.UTF_8);
                ResponseHead h = ResponseHead.of(431);
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
        // The reader sets it too, but only once the thread has started: a handler that answers at once (a 401)
        // would otherwise find itself not yet the stream's thread, and its early answer would not take the rest
        // of its request (Http2Stream.deferRest) nor could a reset interrupt it.
        s.thread = Thread.currentThread(); // no lock: the reader's own write of the same value takes none either
        try {
            handler.handle(s);
        } catch (IOException | RuntimeException e) {
            log.debug("h2 connection {} stream {}: handler ended with {}", id, s.id(), e.toString());
        } finally {
            afterHandler(s);
        }
    }

    /** On the stream's thread: a handler that returned without finishing its response leaves a stream to reset. */
    private void afterHandler(Http2Stream s) {
        if (s.restPending() && !conn.discardRest(s)) {
            // Answered early, and the client has ended (or reset) the stream meanwhile: nothing to discard. Otherwise
            // the reader discards the rest from now on (and resets the stream past its bounds); this thread ends.
            conn.afterLocalEnd(s);
        }
        if (conn.handlerReturned(s)) { // unfinished; a finished response's handler is counted out with its return
            conn.resetLocally(s, Frames.INTERNAL_ERROR, "handler returned without finishing the response");
            conn.handlerEnded(); // after its last write: the connection may park from now on
        }
        Thread.interrupted(); // a client reset may have interrupted this thread after the handler was done
    }
}
