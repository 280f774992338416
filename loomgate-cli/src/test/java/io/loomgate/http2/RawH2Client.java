package io.loomgate.http2;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * An HTTP/2 client on a raw socket that writes exactly the frames a test asks for, hostile ones included, and reads
 * frames back one by one. Uses the product's HPACK classes only to encode requests and decode response heads.
 */
final class RawH2Client implements AutoCloseable {
    record Frame(int type, int flags, int stream, byte[] payload) {
        int errorCode() {
            int at = type == Frames.GOAWAY ? 4 : 0;
            return ((payload[at] & 0xff) << 24) | ((payload[at + 1] & 0xff) << 16) | ((payload[at + 2] & 0xff) << 8)
                    | (payload[at + 3] & 0xff);
        }

        boolean endStream() {
            return (flags & Frames.FLAG_END_STREAM) != 0;
        }

        boolean is(int t, int s) {
            return type == t && stream == s;
        }

        String debugText() {
            return new String(payload, 8, payload.length - 8, java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final HpackDecoder decoder = new HpackDecoder(4096);
    /** Frames read past while waiting for GOAWAY, handed out again by {@link #read()} before the socket's. */
    private final Deque<Frame> putBack = new ArrayDeque<>();
    /** How the connection ended when {@link #read} returned null: the exception (a clean EOF, or a reset). */
    private String endedBy;
    /** Frames held for {@link #inOneWrite}, or null. */
    private ByteArrayOutputStream corked;

    RawH2Client(int port, int... settings) throws IOException {
        this(plain(port), settings);
    }

    /** Over a socket already connected (a TLS socket whose handshake chose h2 by ALPN). */
    RawH2Client(Socket connected, int... settings) throws IOException {
        socket = connected;
        socket.setSoTimeout(20_000);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
        out.write(Frames.PREFACE);
        settings(settings);
    }

    private static Socket plain(int port) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        s.setTcpNoDelay(true);
        return s;
    }

    void settings(int... kv) throws IOException {
        frame(Frames.SETTINGS, 0, 0, WireFrames.settings(kv));
    }

    static byte[] block(String... namesAndValues) {
        return WireFrames.block(namesAndValues);
    }

    /** A GET (or other method) for {@code path} with these extra fields. */
    static byte[] request(String method, String path, String... extra) {
        String[] all = new String[8 + extra.length];
        System.arraycopy(new String[] {":method", method, ":scheme", "http", ":path", path, ":authority", "test"}, 0,
                all, 0, 8);
        System.arraycopy(extra, 0, all, 8, extra.length);
        return block(all);
    }

    void headers(int stream, byte[] block, boolean endStream) throws IOException {
        frame(Frames.HEADERS, Frames.FLAG_END_HEADERS | (endStream ? Frames.FLAG_END_STREAM : 0), stream, block);
    }

    void get(int stream, String path) throws IOException {
        headers(stream, request("GET", path), true);
    }

    void data(int stream, byte[] bytes, boolean endStream) throws IOException {
        frame(Frames.DATA, endStream ? Frames.FLAG_END_STREAM : 0, stream, bytes);
    }

    void rst(int stream, int code) throws IOException {
        frame(Frames.RST_STREAM, 0, stream, WireFrames.int32(code));
    }

    void windowUpdate(int stream, int increment) throws IOException {
        frame(Frames.WINDOW_UPDATE, 0, stream, WireFrames.int32(increment));
    }

    void ping(long opaque) throws IOException {
        byte[] p = new byte[8];
        FrameWriter.putInt(p, 0, (int) (opaque >>> 32));
        FrameWriter.putInt(p, 4, (int) opaque);
        frame(Frames.PING, 0, 0, p);
    }

    /**
     * Sends the frames the action writes in one write, so the server reads them as one burst (a test whose frames
     * must all arrive before the server can act on the first).
     */
    void inOneWrite(IoAction action) throws IOException {
        corked = new ByteArrayOutputStream();
        try {
            action.run();
        } finally {
            byte[] all = corked.toByteArray();
            corked = null;
            out.write(all);
            out.flush();
        }
    }

    interface IoAction {
        void run() throws IOException;
    }

    void frame(int type, int flags, int stream, byte[] payload) throws IOException {
        byte[] f = WireFrames.frame(type, flags, stream, payload);
        if (corked != null) {
            corked.write(f);
            return;
        }
        out.write(f);
        out.flush();
    }

    /** The next frame, or null at the end of the connection. */
    Frame read() throws IOException {
        Frame kept = putBack.pollFirst();
        if (kept != null) {
            return kept;
        }
        try {
            return WireFrames.read(in, Frame::new);
        } catch (EOFException | SocketException e) {
            endedBy = e.toString();
            return null;
        }
    }

    /** The next frame if one arrives within {@code millis}, else null (also at the end of the connection). */
    Frame readWithin(int millis) throws IOException {
        if (!putBack.isEmpty()) {
            return putBack.pollFirst();
        }
        socket.setSoTimeout(millis);
        try {
            return read();
        } catch (java.net.SocketTimeoutException e) {
            return null;
        } finally {
            socket.setSoTimeout(20_000);
        }
    }

    /** Reads until a frame matches (returned) or the connection ends (null). Response heads are decoded on the way. */
    Frame await(Predicate<Frame> wanted) throws IOException {
        while (true) {
            Frame f = read();
            if (f == null || wanted.test(f)) {
                return f;
            }
        }
    }

    /**
     * Reads until GOAWAY (returned) or the end of the connection (null). The frames before it are kept for later
     * reads, in order: GOAWAY may overtake a stream's HEADERS or DATA that a test reads next (a drain test's
     * in-flight response), and those must not be lost.
     */
    Frame awaitGoAway() throws IOException {
        Deque<Frame> before = new ArrayDeque<>();
        while (true) {
            Frame f = read();
            if (f == null || f.type() == Frames.GOAWAY) {
                putBack.addAll(before); // read() took any kept earlier first, so the order is the wire's
                return f;
            }
            before.addLast(f);
        }
    }

    /** Decodes a HEADERS frame's block (END_HEADERS expected) to a map; keeps the decoder's table in step. */
    Map<String, String> fields(Frame headers) throws HpackException {
        Map<String, String> m = new LinkedHashMap<>();
        byte[] b = WireFrames.blockOf(headers.flags(), headers.payload());
        decoder.decode(b, b.length, Long.MAX_VALUE, m::put);
        return m;
    }

    /** Decodes a HEADERS frame's block to its field lines in order, "name: value", repeated names kept. */
    List<String> fieldLines(Frame headers) throws HpackException {
        List<String> lines = new ArrayList<>();
        byte[] b = WireFrames.blockOf(headers.flags(), headers.payload());
        decoder.decode(b, b.length, Long.MAX_VALUE, (name, value) -> lines.add(name + ": " + value));
        return lines;
    }

    /** Reads one stream's DATA to END_STREAM (other streams' frames are skipped); null if the stream was reset. */
    String body(int stream) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        while (true) {
            Frame f = await(x -> x.stream() == stream && (x.type() == Frames.DATA || x.type() == Frames.RST_STREAM
                    || x.type() == Frames.HEADERS && x.endStream()));
            if (f == null || f.type() == Frames.RST_STREAM) {
                return null;
            }
            if (f.type() == Frames.DATA) {
                b.writeBytes(f.payload());
            }
            if (f.endStream()) {
                return b.toString(java.nio.charset.StandardCharsets.UTF_8);
            }
        }
    }

    /** Bytes as they are, no framing (a frame cut short). */
    void raw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** How the connection ended (null while it has not). */
    String endedBy() {
        return endedBy;
    }

    Socket socket() {
        return socket;
    }

    /** Whether the server closed the connection (reads to EOF, discarding frames). */
    boolean isClosedByPeer() throws IOException {
        return await(f -> false) == null;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
