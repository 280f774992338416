package io.loomgate.http2;

/**
 * The bounds {@link OriginFloods} puts on an HTTP/2 origin's frames that cost the gateway work without carrying a
 * response ({@code upstream.http2-max-control-frames-burst}, {@code -per-second} and
 * {@code upstream.http2-max-window-updates-per-data-frame}, or a named upstream's {@code pool:}). Past either bound
 * the connection ends with GOAWAY ENHANCE_YOUR_CALM.
 *
 * @param burst                     PING, SETTINGS, PRIORITY, empty DATA, the stream errors we answer with RST_STREAM,
 *                                  and header blocks or RST_STREAMs on streams that are not open (past two per stream
 *                                  opened) an origin may send at once, per connection. At least 1; default 1,000.
 * @param perSecond                 ... and then on average per second. At least 1; default 100.
 * @param windowUpdatesPerDataFrame WINDOW_UPDATEs allowed per DATA frame of our uploads: at most 1 + 2 x (streams
 *                                  opened + this x DATA frames sent) on a connection. At least 1; default 10 (Envoy's
 *                                  {@code max_inbound_window_update_frames_per_data_frame_sent}, and the server
 *                                  side's fixed bound).
 */
public record OriginFloodLimits(int burst, int perSecond, int windowUpdatesPerDataFrame) {
    public static final OriginFloodLimits DEFAULTS = new OriginFloodLimits(1000, 100, 10);

    public OriginFloodLimits {
        if (burst < 1) {
            throw new IllegalArgumentException("http2-max-control-frames-burst must be at least 1, not " + burst);
        }
        if (perSecond < 1) {
            throw new IllegalArgumentException("http2-max-control-frames-per-second must be at least 1, not "
                    + perSecond);
        }
        if (windowUpdatesPerDataFrame < 1) {
            throw new IllegalArgumentException("http2-max-window-updates-per-data-frame must be at least 1, not "
                    + windowUpdatesPerDataFrame);
        }
    }
}
