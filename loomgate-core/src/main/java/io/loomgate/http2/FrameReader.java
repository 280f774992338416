package io.loomgate.http2;

import java.io.EOFException;
import java.io.IOException;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the frames of one HTTP/2 connection, either role, and hands each to its {@link Handler}: the frame header, the
 * payload within SETTINGS_MAX_FRAME_SIZE, padding, a header block gathered over CONTINUATION frames (bounded in bytes
 * and frames) and decoded with the connection's HPACK table, the connection's receive window, and every check that
 * RFC 9113 makes of a frame whatever the role (SETTINGS, PING, GOAWAY, RST_STREAM, PRIORITY and WINDOW_UPDATE
 * formats and values, frames on idle streams). What is left to the handler is what a role decides: what a stream id
 * means, what a header block opens or ends, what to do with a window or a setting.
 *
 * <p>Errors: a connection error propagates as an {@link Http2Exception} (the connection sends GOAWAY); a stream error
 * found while reading a frame is handed to {@link Handler#streamError} and reading goes on. Reader thread only.
 *
 * <p>Model: OkHttp's {@code Http2Reader} and its {@code Handler}, one reader for both roles.
 */
final class FrameReader<F extends HpackDecoder.FieldSink> {
    private static final Logger log = LoggerFactory.getLogger(FrameReader.class);
    /** CONTINUATION frames allowed in one header block: a real block needs a handful. */
    static final int MAX_CONTINUATIONS = 32;
    /** Our HPACK dynamic table size (SETTINGS_HEADER_TABLE_SIZE default), on both sides. */
    static final int HEADER_TABLE_SIZE = 4096;
    private static final byte[] EMPTY = new byte[0];
    /**
     * The largest frame read into the reader's own buffer ({@link #frame}): a usual request's HEADERS (tens to a few
     * hundred bytes) and every control frame fit; a larger frame is read into an array of its own, as all were.
     */
    static final int KEPT_FRAME = 4096;
    /** The first buffer's size at least: a usual HEADERS frame fits, so one array serves the connection. */
    private static final int MIN_FRAME = 256;

    /**
     * What a role does with the frames read. Called on the reader thread, holding no lock; a method may throw a
     * stream error (reading goes on) or a connection error (the connection ends).
     */
    interface Handler<F extends HpackDecoder.FieldSink> {
        /** Whether {@code stream} is idle (RFC 9113 §5.1): never opened, or of the kind the peer may not open. */
        boolean isIdle(int stream);

        /**
         * DATA on an open (not idle) stream, the connection window already counted: {@code payload.length} is what
         * the frame takes of the stream's window (padding included), {@code data[off, off+len)} the body bytes.
         */
        void data(int stream, byte[] payload, int off, int len, boolean endStream) throws Http2Exception, IOException;

        /**
         * Where the fields of a whole header block of {@code stream} go, about to be decoded; {@code blockFields} is
         * how many the block holds, pseudo-fields included, counted up to 64
         * ({@link HpackDecoder#countFields}).
         */
        F fieldsFor(int stream, int blockFields);

        /**
         * A whole header block, decoded into {@code fields} ({@code withinLimit} false when the decoded list went over
         * the limit: the table is in step but the fields are not all there); {@code selfDependent} when its priority
         * named the stream itself (a stream error, RFC 9113 §5.3.1, once the stream is accounted for).
         */
        void headers(int stream, F fields, boolean withinLimit, boolean endStream, boolean selfDependent)
                throws Http2Exception, IOException;

        void rstStream(int stream, int code) throws Http2Exception;

        /** The peer's SETTINGS (not an ACK): valid pairs of {@link #forEachSetting}. */
        void settings(byte[] payload) throws Http2Exception, IOException;

        /**
         * An ACK of SETTINGS: one is owed per SETTINGS sent, but nothing stops a peer sending more, each a frame read
         * for nothing (as a PRIORITY is), so the role counts them with its control frames.
         */
        void settingsAck() throws Http2Exception;

        void ping(boolean ack, byte[] payload) throws Http2Exception, IOException;

        void goAway(int lastStreamId, int code, byte[] payload) throws Http2Exception;

        /** A positive increment for the connection (stream 0) or an open stream. */
        void windowUpdate(int stream, int increment) throws Http2Exception;

        /**
         * A stream error found while reading: the stream is reset (RST_STREAM), the connection goes on, unless the
         * role counts such errors as an attack (a connection error thrown).
         */
        void streamError(int stream, int code, String why) throws Http2Exception, IOException;

        /** A well-formed PRIORITY frame, which is otherwise ignored: a role may count them. */
        default void priority(int stream) throws Http2Exception {
        }
    }

    /** One setting of a SETTINGS frame. */
    @FunctionalInterface
    interface Setting {
        void apply(int key, long value) throws Http2Exception;
    }

    /** Names the connection in log lines, by its toString (made only when a line is written). */
    private final Object connection;
    private final boolean server;
    private final FrameWriter writer;
    private final int connectionWindow;
    private final int maxHeaderListSize;
    private final Handler<F> handler;
    private final HpackDecoder decoder = new HpackDecoder(HEADER_TABLE_SIZE);
    private final byte[] head = new byte[Frames.HEADER_LENGTH];
    /**
     * The payload of the frame being handled, for the frame types whose handling keeps no reference to it (HEADERS,
     * CONTINUATION, PRIORITY, RST_STREAM, WINDOW_UPDATE, unknown types): one array per connection instead of one per
     * frame (a request's HEADERS frame was one array per request). A header block that ends in its HEADERS frame (the
     * usual request) is decoded here in place. Made at the first such frame, grown up to {@link #KEPT_FRAME}, let go
     * when the connection parks ({@link #parking}). DATA, SETTINGS, PING and GOAWAY payloads still get an array of
     * their own: their handlers may keep it (a body queues its DATA, a PING's payload goes back in its ACK).
     */
    private byte[] frame;
    private FrameInput in;
    private int connRecvWindow;
    // the header block being gathered
    private int blockStream;
    private byte[] block;
    private int blockLength;
    private boolean blockEndStream;
    private boolean blockSelfDependent;
    private int blockFrames;

    /**
     * @param connection        names the connection in log lines (its toString)
     * @param server            the server role: HEADERS on an idle stream opens it (the peer of a client opens none)
     * @param writer            where the connection's receive window is reopened (WINDOW_UPDATE on stream 0)
     * @param connectionWindow  the connection's receive window, as this side announced it
     * @param maxHeaderListSize the decoded size of a header block this side accepts
     */
    FrameReader(Object connection, boolean server, FrameInput in, FrameWriter writer, int connectionWindow,
                int maxHeaderListSize, Handler<F> handler) {
        this.connection = connection;
        this.server = server;
        this.in = in;
        this.writer = writer;
        this.connectionWindow = connectionWindow;
        this.connRecvWindow = connectionWindow;
        this.maxHeaderListSize = maxHeaderListSize;
        this.handler = handler;
    }

    /** Reads from here on (a parked connection resumed on a new input); null while parked. */
    void input(FrameInput in) {
        this.in = in;
    }

    FrameInput input() {
        return in;
    }

    /** The connection parks while idle: what the reader keeps only to save work on the next block goes. */
    void parking() {
        frame = null;
        decoder.dropScratch();
    }

    /** Whether a header block is being gathered: the connection is not idle. */
    boolean inHeaderBlock() {
        return block != null;
    }

    /**
     * Waits for the first bytes of the next frame, holding no buffer: how many came (-1 at the end of the input).
     * Then {@link #readFrame} reads the rest.
     */
    int awaitFrame() throws IOException {
        return in.awaitRead(head, 0, Frames.HEADER_LENGTH);
    }

    /** Reads exactly {@code len} bytes (the connection preface). */
    void readFully(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            int n = in.read(b, off, len);
            if (n < 0) {
                throw new EOFException("connection closed by the " + (server ? "client" : "origin"));
            }
            off += n;
            len -= n;
        }
    }

    /** The stream of the frame read last (0: the connection's). */
    private int frameStream;

    /**
     * The stream of the frame read last (0: the connection's): after a connection error, the stream whose frame it
     * was, which the client side fails as malformed while the connection's other streams fail as its end.
     */
    int frameStream() {
        return frameStream;
    }

    /** Reads the rest of the frame whose first {@code got} bytes {@link #awaitFrame} read, and handles it. */
    void readFrame(int got) throws IOException, Http2Exception {
        readFully(head, got, Frames.HEADER_LENGTH - got);
        int length = ((head[0] & 0xff) << 16) | ((head[1] & 0xff) << 8) | (head[2] & 0xff);
        int type = head[3] & 0xff;
        int flags = head[4] & 0xff;
        int stream = Frames.getInt(head, 5) & 0x7fffffff;
        frameStream = stream;
        if (length > Frames.DEFAULT_MAX_FRAME_SIZE) {
            throw Http2Exception.connection(Frames.FRAME_SIZE_ERROR, "frame of " + length
                    + " bytes over SETTINGS_MAX_FRAME_SIZE");
        }
        byte[] payload = payloadArray(type, length);
        readFully(payload, 0, length);
        if (block != null && type != Frames.CONTINUATION) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "header block interrupted by frame type "
                    + type + " (RFC 9113 §6.10)");
        }
        try {
            switch (type) {
                case Frames.DATA -> onData(stream, flags, payload);
                case Frames.HEADERS -> onHeaders(stream, flags, payload, length);
                case Frames.PRIORITY -> onPriority(stream, payload, length);
                case Frames.RST_STREAM -> onRstStream(stream, payload, length);
                case Frames.SETTINGS -> onSettings(stream, flags, payload);
                case Frames.PUSH_PROMISE -> throw Http2Exception.connection(Frames.PROTOCOL_ERROR, server
                        ? "PUSH_PROMISE from a client (RFC 9113 §8.4)"
                        : "PUSH_PROMISE although SETTINGS_ENABLE_PUSH is 0");
                case Frames.PING -> onPing(stream, flags, payload);
                case Frames.GOAWAY -> onGoAway(stream, payload);
                case Frames.WINDOW_UPDATE -> onWindowUpdate(stream, payload, length);
                case Frames.CONTINUATION -> onContinuation(stream, flags, payload, length);
                default -> {
                    // unknown frame types are ignored (RFC 9113 §5.5)
                }
            }
        } catch (Http2Exception e) {
            if (e.isConnectionError()) {
                throw e;
            }
            log.debug("{} stream {}: {} {}", connection, e.streamId(), Frames.errorName(e.code()), e.getMessage());
            handler.streamError(e.streamId(), e.code(), e.getMessage());
        }
    }

    /**
     * Where a frame's payload is read: an array of its own for the types whose handlers may keep it and for a frame
     * over {@link #KEPT_FRAME}; else the reader's buffer, which then holds {@code length} bytes of payload followed
     * by whatever an earlier frame left (so the handlers of those types take the length, not the array's).
     */
    private byte[] payloadArray(int type, int length) {
        if (length == 0) {
            return EMPTY;
        }
        boolean kept = switch (type) {
            case Frames.DATA, Frames.SETTINGS, Frames.PING, Frames.GOAWAY -> false;
            default -> length <= KEPT_FRAME;
        };
        if (!kept) {
            return new byte[length];
        }
        if (frame == null || frame.length < length) {
            int doubled = frame == null ? MIN_FRAME : frame.length * 2;
            frame = new byte[Math.min(KEPT_FRAME, Math.max(length, doubled))];
        }
        return frame;
    }

    /** Each setting of a (valid) SETTINGS payload, in order (RFC 9113 §6.5.3). */
    static void forEachSetting(byte[] payload, Setting setting) throws Http2Exception {
        for (int i = 0; i < payload.length; i += 6) {
            int key = ((payload[i] & 0xff) << 8) | (payload[i + 1] & 0xff);
            setting.apply(key, Frames.getInt(payload, i + 2) & 0xffffffffL);
        }
    }

    private void onData(int stream, int flags, byte[] payload) throws Http2Exception, IOException {
        if (stream == 0) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "DATA on stream 0");
        }
        if (handler.isIdle(stream)) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "DATA on idle stream " + stream);
        }
        int padding = padding(flags, payload, payload.length);
        // Connection flow control counts the whole frame, padding included (RFC 9113 §6.9.1).
        connRecvWindow -= payload.length;
        if (connRecvWindow < 0) {
            throw Http2Exception.connection(Frames.FLOW_CONTROL_ERROR, "DATA beyond the connection window");
        }
        // The connection window reopens at once: each stream's own window bounds what is buffered.
        if (connRecvWindow <= connectionWindow / 2) {
            writer.windowUpdate(0, connectionWindow - connRecvWindow);
            connRecvWindow = connectionWindow;
        }
        int off = (flags & Frames.FLAG_PADDED) != 0 ? 1 : 0;
        handler.data(stream, payload, off, payload.length - off - padding, (flags & Frames.FLAG_END_STREAM) != 0);
    }

    /** The pad length of a frame whose payload is {@code payload[0, length)}. */
    private static int padding(int flags, byte[] payload, int length) throws Http2Exception {
        if ((flags & Frames.FLAG_PADDED) == 0) {
            return 0;
        }
        if (length < 1) {
            throw Http2Exception.connection(Frames.FRAME_SIZE_ERROR, "padded frame without a pad length");
        }
        int pad = payload[0] & 0xff;
        if (pad >= length) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "padding as long as the frame (RFC 9113 §6.1)");
        }
        return pad;
    }

    /** HEADERS whose payload is {@code payload[0, length)}, the reader's buffer unless the frame was large. */
    private void onHeaders(int stream, int flags, byte[] payload, int length) throws Http2Exception, IOException {
        if (stream == 0) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "HEADERS on stream 0");
        }
        if (!server && handler.isIdle(stream)) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "HEADERS on idle stream " + stream);
        }
        int padding = padding(flags, payload, length);
        int off = (flags & Frames.FLAG_PADDED) != 0 ? 1 : 0;
        boolean selfDependent = false;
        if ((flags & Frames.FLAG_PRIORITY) != 0) {
            if (length - off - padding < 5) {
                throw Http2Exception.connection(Frames.FRAME_SIZE_ERROR, "HEADERS too short for its priority");
            }
            // Decoded anyway, below, to keep HPACK in step; then the handler refuses the stream.
            selfDependent = (Frames.getInt(payload, off) & 0x7fffffff) == stream;
            off += 5;
        }
        int len = length - off - padding;
        if (len > maxHeaderBlock()) {
            throw Http2Exception.connection(Frames.ENHANCE_YOUR_CALM, "header block over " + maxHeaderBlock()
                    + " bytes");
        }
        boolean endStream = (flags & Frames.FLAG_END_STREAM) != 0;
        if ((flags & Frames.FLAG_END_HEADERS) != 0) {
            // The whole block is in this frame (the usual request): decoded where it was read, no copy.
            decodeBlock(stream, payload, off, len, endStream, selfDependent);
            return;
        }
        // CONTINUATION frames follow, read over this buffer: the block so far is copied out and grows with them.
        blockStream = stream;
        block = Arrays.copyOfRange(payload, off, off + len);
        blockLength = len;
        blockEndStream = endStream;
        blockSelfDependent = selfDependent;
        blockFrames = 1;
    }

    /** A compressed block may not exceed the decoded limit by more than a little: HPACK only ever shrinks. */
    private int maxHeaderBlock() {
        return maxHeaderListSize + 1024;
    }

    /** CONTINUATION whose payload is {@code payload[0, length)}: added to the block being gathered. */
    private void onContinuation(int stream, int flags, byte[] payload, int length) throws Http2Exception, IOException {
        if (block == null) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "CONTINUATION without a header block before it"
                    + " (RFC 9113 §6.10)");
        }
        if (stream != blockStream) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "CONTINUATION on stream " + stream
                    + " inside a block of stream " + blockStream);
        }
        // CONTINUATION flood (CVE-2024-27316 class): bounded in bytes and in frames, empty ones included.
        if (++blockFrames > MAX_CONTINUATIONS || blockLength + length > maxHeaderBlock()) {
            block = null;
            throw Http2Exception.connection(Frames.ENHANCE_YOUR_CALM, "header block over " + maxHeaderBlock()
                    + " bytes or " + MAX_CONTINUATIONS + " frames");
        }
        if (blockLength + length > block.length) {
            block = Arrays.copyOf(block, Math.max(block.length * 2, blockLength + length));
        }
        System.arraycopy(payload, 0, block, blockLength, length);
        blockLength += length;
        if ((flags & Frames.FLAG_END_HEADERS) != 0) {
            byte[] b = block;
            block = null;
            decodeBlock(blockStream, b, 0, blockLength, blockEndStream, blockSelfDependent);
        }
    }

    /** The most fields a sink's list is sized for before a block is decoded (a usual request has 5-20). */
    private static final int FIELDS_PRESIZED = 64;

    /**
     * A whole header block, at {@code b[off, off+len)}: decoded always (even for a stream that is gone) to keep HPACK
     * in step, before the handler hears of it (the fields are strings: nothing refers to {@code b} afterwards).
     */
    private void decodeBlock(int stream, byte[] b, int off, int len, boolean endStream, boolean selfDependent)
            throws Http2Exception, IOException {
        F fields = handler.fieldsFor(stream, HpackDecoder.countFields(b, off, len, FIELDS_PRESIZED));
        boolean withinLimit;
        try {
            withinLimit = decoder.decode(b, off, len, maxHeaderListSize, fields);
        } catch (HpackException e) {
            throw Http2Exception.connection(Frames.COMPRESSION_ERROR, e.getMessage());
        }
        handler.headers(stream, fields, withinLimit, endStream, selfDependent);
    }

    private void onPriority(int stream, byte[] payload, int length) throws Http2Exception {
        if (stream == 0) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "PRIORITY on stream 0");
        }
        if (length != 5) {
            throw Http2Exception.stream(stream, Frames.FRAME_SIZE_ERROR, "PRIORITY of " + length + " bytes");
        }
        if ((Frames.getInt(payload, 0) & 0x7fffffff) == stream) {
            throw Http2Exception.stream(stream, Frames.PROTOCOL_ERROR, "stream depends on itself (RFC 9113 §5.3.1)");
        }
        // Priorities are accepted and ignored (RFC 9113 §5.3.2 deprecates the scheme), but counted by the handler.
        handler.priority(stream);
    }

    private void onRstStream(int stream, byte[] payload, int length) throws Http2Exception {
        if (stream == 0) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "RST_STREAM on stream 0");
        }
        if (length != 4) {
            throw Http2Exception.connection(Frames.FRAME_SIZE_ERROR, "RST_STREAM of " + length + " bytes");
        }
        if (handler.isIdle(stream)) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "RST_STREAM on idle stream " + stream);
        }
        handler.rstStream(stream, Frames.getInt(payload, 0));
    }

    private void onSettings(int stream, int flags, byte[] payload) throws Http2Exception, IOException {
        if (stream != 0) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "SETTINGS on stream " + stream);
        }
        if ((flags & Frames.FLAG_ACK) != 0) {
            if (payload.length != 0) {
                throw Http2Exception.connection(Frames.FRAME_SIZE_ERROR, "SETTINGS ACK with a payload");
            }
            handler.settingsAck();
            return;
        }
        if (payload.length % 6 != 0) {
            throw Http2Exception.connection(Frames.FRAME_SIZE_ERROR, "SETTINGS of " + payload.length + " bytes");
        }
        forEachSetting(payload, FrameReader::checkSetting);
        handler.settings(payload);
    }

    /** The values RFC 9113 §6.5.2 bounds; unknown settings are ignored. */
    private static void checkSetting(int key, long value) throws Http2Exception {
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
            }
            case Frames.SETTINGS_MAX_FRAME_SIZE -> {
                if (value < Frames.DEFAULT_MAX_FRAME_SIZE || value > 0xffffff) {
                    throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "SETTINGS_MAX_FRAME_SIZE of " + value);
                }
            }
            default -> {
                // within range by construction, advisory, or unknown
            }
        }
    }

    private void onPing(int stream, int flags, byte[] payload) throws Http2Exception, IOException {
        if (stream != 0) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "PING on stream " + stream);
        }
        if (payload.length != 8) {
            throw Http2Exception.connection(Frames.FRAME_SIZE_ERROR, "PING of " + payload.length + " bytes");
        }
        handler.ping((flags & Frames.FLAG_ACK) != 0, payload);
    }

    private void onGoAway(int stream, byte[] payload) throws Http2Exception {
        if (stream != 0) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "GOAWAY on stream " + stream);
        }
        if (payload.length < 8) {
            throw Http2Exception.connection(Frames.FRAME_SIZE_ERROR, "GOAWAY of " + payload.length + " bytes");
        }
        handler.goAway(Frames.getInt(payload, 0) & 0x7fffffff, Frames.getInt(payload, 4), payload);
    }

    /**
     * RFC 9113 §6.9: an increment of 0 is a stream error on a stream and a connection error on the connection; an
     * idle stream's WINDOW_UPDATE is a connection error (§5.1).
     */
    private void onWindowUpdate(int stream, byte[] payload, int length) throws Http2Exception {
        if (length != 4) {
            throw Http2Exception.connection(Frames.FRAME_SIZE_ERROR, "WINDOW_UPDATE of " + length + " bytes");
        }
        int increment = Frames.getInt(payload, 0) & 0x7fffffff;
        if (stream != 0 && handler.isIdle(stream)) {
            throw Http2Exception.connection(Frames.PROTOCOL_ERROR, "WINDOW_UPDATE on idle stream " + stream);
        }
        if (increment == 0) {
            throw stream == 0
                    ? Http2Exception.connection(Frames.PROTOCOL_ERROR, "WINDOW_UPDATE of 0")
                    : Http2Exception.stream(stream, Frames.PROTOCOL_ERROR, "WINDOW_UPDATE of 0");
        }
        handler.windowUpdate(stream, increment);
    }
}
