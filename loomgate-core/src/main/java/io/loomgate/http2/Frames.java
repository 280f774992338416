package io.loomgate.http2;

/** Frame types, flags, error codes and settings identifiers of RFC 9113 §6, §7 and §6.5.2. */
final class Frames {
    static final int HEADER_LENGTH = 9;

    static final int DATA = 0x0;
    static final int HEADERS = 0x1;
    static final int PRIORITY = 0x2;
    static final int RST_STREAM = 0x3;
    static final int SETTINGS = 0x4;
    static final int PUSH_PROMISE = 0x5;
    static final int PING = 0x6;
    static final int GOAWAY = 0x7;
    static final int WINDOW_UPDATE = 0x8;
    static final int CONTINUATION = 0x9;

    static final int FLAG_END_STREAM = 0x1;
    static final int FLAG_ACK = 0x1;
    static final int FLAG_END_HEADERS = 0x4;
    static final int FLAG_PADDED = 0x8;
    static final int FLAG_PRIORITY = 0x20;

    static final int NO_ERROR = 0x0;
    static final int PROTOCOL_ERROR = 0x1;
    static final int INTERNAL_ERROR = 0x2;
    static final int FLOW_CONTROL_ERROR = 0x3;
    static final int STREAM_CLOSED = 0x5;
    static final int FRAME_SIZE_ERROR = 0x6;
    static final int REFUSED_STREAM = 0x7;
    static final int CANCEL = 0x8;
    static final int COMPRESSION_ERROR = 0x9;
    static final int ENHANCE_YOUR_CALM = 0xb;

    static final int SETTINGS_HEADER_TABLE_SIZE = 0x1;
    static final int SETTINGS_ENABLE_PUSH = 0x2;
    static final int SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
    static final int SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
    static final int SETTINGS_MAX_FRAME_SIZE = 0x5;
    static final int SETTINGS_MAX_HEADER_LIST_SIZE = 0x6;

    static final int DEFAULT_WINDOW = 65_535;
    static final int DEFAULT_MAX_FRAME_SIZE = 16_384;
    static final int MAX_WINDOW = Integer.MAX_VALUE;

    /** The client connection preface (RFC 9113 §3.4). */
    static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private Frames() {
    }

    /** The 32-bit big-endian integer at {@code at}. */
    static int getInt(byte[] b, int at) {
        return ((b[at] & 0xff) << 24) | ((b[at + 1] & 0xff) << 16) | ((b[at + 2] & 0xff) << 8) | (b[at + 3] & 0xff);
    }

    static String errorName(int code) {
        return switch (code) {
            case NO_ERROR -> "NO_ERROR";
            case PROTOCOL_ERROR -> "PROTOCOL_ERROR";
            case INTERNAL_ERROR -> "INTERNAL_ERROR";
            case FLOW_CONTROL_ERROR -> "FLOW_CONTROL_ERROR";
            case STREAM_CLOSED -> "STREAM_CLOSED";
            case FRAME_SIZE_ERROR -> "FRAME_SIZE_ERROR";
            case REFUSED_STREAM -> "REFUSED_STREAM";
            case CANCEL -> "CANCEL";
            case COMPRESSION_ERROR -> "COMPRESSION_ERROR";
            case ENHANCE_YOUR_CALM -> "ENHANCE_YOUR_CALM";
            default -> "0x" + Integer.toHexString(code);
        };
    }
}
