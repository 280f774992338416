package io.loomgate.http2;

/**
 * A protocol error found while reading frames (RFC 9113 §5.4): a connection error (stream 0) ends the connection
 * with GOAWAY, a stream error resets only that stream with RST_STREAM.
 */
final class Http2Exception extends Exception {
    private final int streamId;
    private final int code;

    private Http2Exception(int streamId, int code, String message) {
        super(message, null, false, false);
        this.streamId = streamId;
        this.code = code;
    }

    static Http2Exception connection(int code, String message) {
        return new Http2Exception(0, code, message);
    }

    static Http2Exception stream(int streamId, int code, String message) {
        return new Http2Exception(streamId, code, message);
    }

    int streamId() {
        return streamId;
    }

    int code() {
        return code;
    }

    boolean isConnectionError() {
        return streamId == 0;
    }
}
