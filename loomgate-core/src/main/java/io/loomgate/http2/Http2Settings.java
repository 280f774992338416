package io.loomgate.http2;

/**
 * HTTP/2 on a listener ({@code server.http2} in the configuration).
 *
 * @param enabled                 whether a plain listener accepts h2c with prior knowledge (default false)
 * @param maxConcurrentStreams    SETTINGS_MAX_CONCURRENT_STREAMS: streams open at once; more are refused with
 *                                REFUSED_STREAM (default 100)
 * @param initialWindowSize       SETTINGS_INITIAL_WINDOW_SIZE: request body bytes a stream may send before the
 *                                handler reads them, and so the most buffered per stream (default 65,535)
 * @param maxStreamsPerConnection streams one connection may open in its life; after that GOAWAY asks the client for
 *                                a new connection, so stream ids are never exhausted (default 100,000)
 * @param maxResetsPerSecond      resets of open streams (the client's RST_STREAMs, and ours for its stream errors)
 *                                per second (after a burst of twice that) before the connection is cut with
 *                                ENHANCE_YOUR_CALM: the Rapid Reset and MadeYouReset defence (default 100)
 * @param maxControlPerSecond     PING, SETTINGS, PRIORITY and empty DATA frames, and the RST_STREAM answers to
 *                                frames on streams that are not open, per second (after a burst of twice that) before
 *                                the connection is cut with ENHANCE_YOUR_CALM (default 50)
 */
public record Http2Settings(boolean enabled, int maxConcurrentStreams, int initialWindowSize,
                            int maxStreamsPerConnection, int maxResetsPerSecond, int maxControlPerSecond) {

    public static final Http2Settings DISABLED = new Http2Settings(false, 100, Frames.DEFAULT_WINDOW, 100_000, 100, 50);

    public Http2Settings {
        if (maxConcurrentStreams < 1 || initialWindowSize < 1 || maxStreamsPerConnection < 1 || maxResetsPerSecond < 1
                || maxControlPerSecond < 1) {
            throw new IllegalArgumentException("HTTP/2 settings must be positive: " + this);
        }
    }

    public static Http2Settings enabledDefaults() {
        return DISABLED.withEnabled(true);
    }

    public Http2Settings withEnabled(boolean on) {
        return new Http2Settings(on, maxConcurrentStreams, initialWindowSize, maxStreamsPerConnection,
                maxResetsPerSecond, maxControlPerSecond);
    }

    /** The preface's first line: enough to tell HTTP/2 prior knowledge from an HTTP/1.1 request line. */
    public static byte[] prefaceStart() {
        return java.util.Arrays.copyOf(Frames.PREFACE, 16);
    }
}
