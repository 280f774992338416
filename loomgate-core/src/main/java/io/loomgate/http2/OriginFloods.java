package io.loomgate.http2;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The bounds on what an origin's frames may make an {@link Http2ClientConnection} do besides carry responses: the
 * client side's counterpart of the server's control-frame budget ({@link ServerFrames}). An origin that sends PINGs,
 * SETTINGS, PRIORITY, empty DATA frames, RST_STREAMs or header blocks for streams that are not open, or frames that
 * make us reset a stream, again and again, is answered (a PING ACK, a SETTINGS ACK, a RST_STREAM) or at least read,
 * decoded and looked up for each, at no cost to itself: past a burst (default 1,000) and a rate (default 100 a second;
 * both {@link OriginFloodLimits}, settings since session 45) the connection ends with GOAWAY ENHANCE_YOUR_CALM, its
 * streams failing as the connection's end (retried where that is safe; a stream whose own frames were the flood as
 * malformed) and the pool dialling a fresh connection for the next request. Header blocks and RST_STREAMs on streams
 * that are not open count only past two per stream opened (one in flight as we reset a stream is a race).
 * WINDOW_UPDATEs are bounded as the server bounds them, by the DATA frames we sent (Envoy's
 * {@code max_inbound_window_update_frames_per_data_frame_sent}, which Envoy applies to upstream connections too): at
 * most 1 + 2 x (streams opened + N x DATA frames sent), N 10 by default.
 *
 * <p>Why these numbers: a legitimate origin sends a few SETTINGS, a PING now and then (keep-alive, or a gRPC server's
 * bandwidth probe, one per round trip while our upload flows and only until its window stops growing) and a RST or
 * a head for a stream we cancelled only in a race with that cancel. nghttp2 bounds such "glitches" in both roles
 * with a bucket of 10,000 and 330 a second, and the PING and SETTINGS ACKs it has not yet written at 1,000; Envoy's
 * upstream codec (envoyproxy/envoy#12281, PR #13635) the ACKs queued at 1,000 too. The gateway writes each
 * ACK at once (nothing queues), so what it bounds is the work; 1,000 at once is the depth both allow.
 *
 * <p>Reader thread only, except {@link #dataFrameSent} (request threads, as they write their uploads).
 */
final class OriginFloods {
    private final RateLimit frames;
    /** 2 x WINDOW_UPDATEs allowed per DATA frame sent. */
    private final long windowUpdatesPerDataFrame2;
    private final AtomicLong dataFramesSent = new AtomicLong();
    /** Streams opened on the connection so far (read under the connection's lock, so only past the cheap bound). */
    private final LongSupplier streamsOpened;
    private long windowUpdates;
    private long closedStreamFrames;

    OriginFloods(OriginFloodLimits limits, LongSupplier streamsOpened) {
        this.frames = new RateLimit(limits.burst(), limits.perSecond());
        this.windowUpdatesPerDataFrame2 = 2L * limits.windowUpdatesPerDataFrame();
        this.streamsOpened = streamsOpened;
    }

    /**
     * Counts one frame that costs us work without carrying a response ({@code what} names it in the GOAWAY's debug
     * data and the log); over the rate, a connection error.
     */
    void count(String what) throws Http2Exception {
        if (!frames.tryAcquire()) {
            throw flood(what);
        }
    }

    /**
     * A header block or RST_STREAM for a stream that is not open. One in flight as we reset the stream is a race (a
     * head and trailers, or a RST crossing ours), so two per stream opened are free; past that each counts as
     * {@link #count} does.
     */
    void closedStreamFrame(String what) throws Http2Exception {
        if (++closedStreamFrames > 2 * streamsOpened.getAsLong()) {
            count(what);
        }
    }

    /** A WINDOW_UPDATE (applied already: a window past 2^31-1 stays the FLOW_CONTROL_ERROR it is). */
    void windowUpdate() throws Http2Exception {
        windowUpdates++;
        long allowed = 1 + windowUpdatesPerDataFrame2 * dataFramesSent.get();
        if (windowUpdates > allowed && windowUpdates > allowed + 2 * streamsOpened.getAsLong()) {
            throw flood("WINDOW_UPDATE");
        }
    }

    /** A DATA frame of our upload went out: each lets the origin send more WINDOW_UPDATEs (ten by default). */
    void dataFrameSent() {
        dataFramesSent.incrementAndGet();
    }

    private static Http2Exception flood(String what) {
        return Http2Exception.connection(Frames.ENHANCE_YOUR_CALM, what + " flood from the origin");
    }
}
