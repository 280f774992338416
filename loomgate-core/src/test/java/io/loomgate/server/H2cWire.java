package io.loomgate.server;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * A prior-knowledge h2c client on a raw socket for the listener's tests: writes exactly the frames asked for (its own
 * HPACK, literal and indexed fields, no Huffman) and collects what the server sends on a virtual thread, so a test can
 * wait for a frame, or for the end of the connection, with a deadline.
 */
public final class H2cWire implements AutoCloseable {
    static final int DATA = 0x0;
    static final int HEADERS = 0x1;
    static final int RST_STREAM = 0x3;
    public static final int SETTINGS = 0x4;
    public static final int PING = 0x6;
    static final int GOAWAY = 0x7;
    static final int END_STREAM = 0x1;
    static final int END_HEADERS = 0x4;
    static final int ACK = 0x1;
    static final int ENHANCE_YOUR_CALM = 0xb;
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    /** What {@link #next} returns once the server closed the connection. */
    static final Frame END = new Frame(-1, 0, 0, new byte[0]);

    record Frame(int type, int flags, int stream, byte[] payload) {
        boolean is(int t) {
            return type == t;
        }

        int int32(int at) {
            return ((payload[at] & 0xff) << 24) | ((payload[at + 1] & 0xff) << 16) | ((payload[at + 2] & 0xff) << 8)
                    | (payload[at + 3] & 0xff);
        }

        String text() {
            return new String(payload, StandardCharsets.UTF_8);
        }
    }

    private final Socket socket;
    private final OutputStream out;
    private final LinkedBlockingQueue<Frame> frames = new LinkedBlockingQueue<>();
    /** The test's thread and the collector's SETTINGS ACK both write. */
    private final ReentrantLock writing = new ReentrantLock();
    /** Counted down once the collector has written its ACK of the server's first SETTINGS. */
    private final java.util.concurrent.CountDownLatch settingsAcked = new java.util.concurrent.CountDownLatch(1);

    /** Connects, sends the preface and an empty SETTINGS, and starts collecting frames. */
    H2cWire(int port) throws IOException {
        this(plain(port));
    }

    /** Over a socket the test connected itself, e.g. TLS with ALPN h2; then the same preface and SETTINGS. */
    H2cWire(Socket connected) throws IOException {
        socket = connected;
        out = socket.getOutputStream();
        DataInputStream in = new DataInputStream(socket.getInputStream());
        Thread.ofVirtual().name("h2c-wire-reader").start(() -> collect(in));
        ByteArrayOutputStream start = new ByteArrayOutputStream();
        start.writeBytes(PREFACE);
        start.writeBytes(frame(SETTINGS, 0, 0, new byte[0]));
        send(start.toByteArray());
        // The settings exchange ends before the test's first frame: an ACK written by the collector after the test's
        // request (a collector thread descheduled under load) would reach the server after its stream ended, and
        // wake a connection that had parked, so that it parks once more than the test counts (it waited 30 s for
        // "parks() == 1" under a load of 9 once, session 44). In TCP order behind the ACK, nothing comes late.
        try {
            if (!settingsAcked.await(30, TimeUnit.SECONDS)) {
                throw new IOException("no SETTINGS from the server within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("waiting for the server's SETTINGS");
        }
    }

    /** An h2 client over TLS through {@code client}'s sockets (SNI localhost), h2 agreed by ALPN. */
    static H2cWire overTls(SSLContext client, int port, int readTimeoutMillis) throws IOException {
        SSLSocket s = (SSLSocket) client.getSocketFactory().createSocket("127.0.0.1", port);
        SSLParameters p = s.getSSLParameters();
        p.setApplicationProtocols(new String[] {"h2"});
        p.setServerNames(java.util.List.of(new SNIHostName("localhost")));
        s.setSSLParameters(p);
        s.setSoTimeout(readTimeoutMillis);
        s.startHandshake();
        if (!"h2".equals(s.getApplicationProtocol())) {
            s.close();
            throw new AssertionError("ALPN agreed '" + s.getApplicationProtocol() + "', not h2");
        }
        return new H2cWire(s);
    }

    private static Socket plain(int port) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        s.setTcpNoDelay(true);
        return s;
    }

    private void collect(DataInputStream in) {
        try {
            while (true) {
                int length = (in.readUnsignedByte() << 16) | (in.readUnsignedByte() << 8) | in.readUnsignedByte();
                int type = in.readUnsignedByte();
                int flags = in.readUnsignedByte();
                int stream = in.readInt() & 0x7fffffff;
                byte[] payload = new byte[length];
                in.readFully(payload);
                if (type == SETTINGS && (flags & ACK) == 0) {
                    send(frame(SETTINGS, ACK, 0, new byte[0]));
                    settingsAcked.countDown();
                }
                frames.add(new Frame(type, flags, stream, payload));
            }
        } catch (EOFException e) {
            // the server closed: END below
        } catch (IOException e) {
            // reset, or closed by the test
        } finally {
            frames.add(END);
        }
    }

    /** One frame's bytes (the upstream package's raw origins write theirs with it too). */
    public static byte[] frame(int type, int flags, int stream, byte[] payload) {
        byte[] f = new byte[9 + payload.length];
        f[0] = (byte) (payload.length >>> 16);
        f[1] = (byte) (payload.length >>> 8);
        f[2] = (byte) payload.length;
        f[3] = (byte) type;
        f[4] = (byte) flags;
        f[5] = (byte) (stream >>> 24);
        f[6] = (byte) (stream >>> 16);
        f[7] = (byte) (stream >>> 8);
        f[8] = (byte) stream;
        System.arraycopy(payload, 0, f, 9, payload.length);
        return f;
    }

    /**
     * A GET's header block: {@code :method GET}, {@code :scheme http} (indexed), {@code :path} and
     * {@code :authority} (literal, not indexed), then {@code extra}: more encoded fields.
     */
    static byte[] get(String path, byte[] extra) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(0x82);
        b.write(0x86);
        literal(b, 0x00, 4, path);
        literal(b, 0x00, 1, "t");
        b.writeBytes(extra);
        return b.toByteArray();
    }

    /** A field added to the dynamic table (literal with incremental indexing, new name): index 62 once sent. */
    static byte[] indexedLiteral(String name, String value) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(0x40);
        string(b, name);
        string(b, value);
        return b.toByteArray();
    }

    /** A reference to a dynamic-table entry (62 is the newest). */
    static byte[] indexed(int index) {
        return new byte[] {(byte) (0x80 | index)}; // indexes below 127 fit the 7-bit prefix
    }

    private static void literal(ByteArrayOutputStream b, int prefix, int nameIndex, String value) {
        b.write(prefix | nameIndex); // static name indexes below 15 fit the 4-bit prefix
        string(b, value);
    }

    private static void string(ByteArrayOutputStream b, String s) {
        byte[] bytes = s.getBytes(StandardCharsets.US_ASCII);
        b.write(bytes.length); // short strings only: below 127
        b.writeBytes(bytes);
    }

    void headers(int stream, byte[] block) throws IOException {
        send(frame(HEADERS, END_HEADERS | END_STREAM, stream, block));
    }

    void send(byte[] bytes) throws IOException {
        writing.lock();
        try {
            out.write(bytes);
            out.flush();
        } finally {
            writing.unlock();
        }
    }

    /** The next frame the server sent, {@link #END} once it closed; fails after a generous deadline. */
    Frame next() throws InterruptedException {
        Frame f = frames.poll(30, TimeUnit.SECONDS);
        if (f == null) {
            throw new AssertionError("no frame from the server within 30 s");
        }
        if (f == END) {
            frames.add(END); // stays the answer from now on
        }
        return f;
    }

    /** Skips frames until one of this type (or the end). */
    Frame next(int type) throws InterruptedException {
        while (true) {
            Frame f = next();
            if (f.is(type) || f == END) {
                return f;
            }
        }
    }

    /** Waits for a GOAWAY(NO_ERROR) naming {@code lastStream}, then for the server's close. */
    void expectGoAwayThenClose(int lastStream) throws InterruptedException {
        Frame goAway = next(GOAWAY);
        if (!goAway.is(GOAWAY)) {
            throw new AssertionError("closed without a GOAWAY");
        }
        if (goAway.int32(0) != lastStream || goAway.int32(4) != 0) {
            throw new AssertionError("GOAWAY last stream " + goAway.int32(0) + ", error " + goAway.int32(4)
                    + "; expected last stream " + lastStream + ", NO_ERROR");
        }
        if (next() != END) {
            throw new AssertionError("a frame after the GOAWAY instead of the close");
        }
    }

    /** The body of a response on {@code stream}: its DATA frames up to END_STREAM. */
    String body(int stream) throws InterruptedException {
        StringBuilder s = new StringBuilder();
        while (true) {
            Frame f = next();
            if (f == END) {
                throw new AssertionError("connection closed before stream " + stream + " ended; got " + s);
            }
            if (f.is(DATA) && f.stream() == stream) {
                s.append(f.text());
                if ((f.flags() & END_STREAM) != 0) {
                    return s.toString();
                }
            } else if (f.is(RST_STREAM) && f.stream() == stream) {
                throw new AssertionError("stream " + stream + " reset with " + f.int32(0));
            } else if (f.is(GOAWAY)) {
                throw new AssertionError("GOAWAY " + f.int32(4) + " before stream " + stream + " ended");
            }
        }
    }

    /** Whether a frame of this type has come and is still queued (does not wait). */
    boolean holds(int type) {
        return frames.stream().anyMatch(f -> f.is(type));
    }

    /** Closes with a RST from the kernel instead of a FIN (SO_LINGER 0). */
    void reset() throws IOException {
        socket.setSoLinger(true, 0);
        socket.close();
    }

    void shutdownOutput() throws IOException {
        socket.shutdownOutput();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
