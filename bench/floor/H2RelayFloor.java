import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.locks.ReentrantLock;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;

/**
 * W9's shape over h2c with the least a Java proxy can do per stream: the structure the gateway has (a virtual thread
 * reads a client connection's frames, a virtual thread per stream takes a pooled HTTP/1.1 connection to the origin,
 * sends the request, waits for the answer on the JDK's blocking socket and writes HEADERS and DATA back under the
 * connection's write lock), and none of its work: no HPACK decoding (every request goes to {@code PATH}), no routing,
 * filters, flow control, limits, metrics or deadlines. It expects the harness's origin (a small answer with a
 * Content-Length). What it spends per request is the JDK's part of W9: its socket I/O on virtual threads, a virtual
 * thread per stream, and the JVM itself. So it is a floor to measure the gateway against, not a proxy.
 *
 * <p>With a key store it speaks h2 over TLS instead (W9's own shape): JSSE's {@link SSLEngine} over the accepted
 * channel with the gateway's default suites and ALPN h2, reads unwrapped on the connection's thread and each write
 * wrapped under the connection's lock, as the gateway's listener does it. Run it with
 * {@code -Djdk.tls.server.newSessionTicketCount=0}, as the gateway's bench config turns resumption off.
 *
 * <p>Usage: {@code java H2RelayFloor [LISTEN_PORT [ORIGIN_PORT [PATH [KEYSTORE.p12 PASSWORD]]]]} (defaults 18081,
 * 18080, /api/data, cleartext).
 */
public class H2RelayFloor {
    static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    static final ConcurrentLinkedDeque<Origin> POOL = new ConcurrentLinkedDeque<>();
    static int originPort;
    static byte[] request;
    /** How a stream opens an origin connection when the pool has none: the JDK's socket here, epoll's in floor-epoll. */
    static Opener opener = Origin::open;

    interface Opener {
        Origin open() throws IOException;
    }

    /** One pooled HTTP/1.1 connection to the origin. */
    record Origin(Closeable socket, InputStream in, OutputStream out) {
        static Origin open() throws IOException {
            Socket s = new Socket("127.0.0.1", originPort);
            s.setTcpNoDelay(true);
            return new Origin(s, s.getInputStream(), s.getOutputStream());
        }
    }

    /** One client connection: its socket's output, shared by its streams under a lock. */
    record Client(OutputStream out, ReentrantLock writeLock) {
        void write(byte[] frames, int length) throws IOException {
            writeLock.lock();
            try {
                out.write(frames, 0, length);
            } finally {
                writeLock.unlock();
            }
        }
    }

    public static void main(String[] args) throws Exception {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 18081;
        originPort = args.length > 1 ? Integer.parseInt(args[1]) : 18080;
        String path = args.length > 2 ? args[2] : "/api/data";
        request = ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        if (args.length > 4) {
            serveTls(port, EngineHandshake.context(args[3], args[4].toCharArray(), false));
        }
        try (ServerSocket server = new ServerSocket()) {
            server.bind(new InetSocketAddress("127.0.0.1", port), 4096);
            System.out.println("h2c relay floor :" + port + " -> 127.0.0.1:" + originPort + path);
            serve(server);
        }
    }

    /** Accepts h2c connections for ever, a virtual thread reading each one's frames (the JDK's sockets or epoll's). */
    static void serve(ServerSocket server) throws IOException {
        while (true) {
            Socket socket = server.accept();
            Thread.ofVirtual().start(() -> {
                try (socket) {
                    socket.setTcpNoDelay(true);
                    frames(socket.getInputStream(), socket.getOutputStream());
                } catch (IOException e) {
                    // the client went away
                }
            });
        }
    }

    private static void serveTls(int port, SSLContext context) throws IOException {
        String[] suites = EngineHandshake.suites(new String[] {"gateway"}, 0);
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress("127.0.0.1", port), 4096);
            System.out.println("h2 over TLS relay floor :" + port + " -> 127.0.0.1:" + originPort);
            while (true) {
                SocketChannel channel = server.accept();
                Thread.ofVirtual().start(() -> {
                    try (channel) {
                        channel.socket().setTcpNoDelay(true);
                        SSLEngine engine = context.createSSLEngine();
                        engine.setUseClientMode(false);
                        engine.setEnabledCipherSuites(suites);
                        engine.setHandshakeApplicationProtocolSelector((e, offered) -> offered.contains("h2") ? "h2" : null);
                        int packet = engine.getSession().getPacketBufferSize();
                        ByteBuffer netIn = ByteBuffer.allocate(packet);
                        ByteBuffer appIn = ByteBuffer.allocate(engine.getSession().getApplicationBufferSize());
                        EngineHandshake.run(engine, channel, netIn, ByteBuffer.allocate(packet), appIn);
                        frames(new EngineInput(engine, channel, netIn, appIn),
                                new EngineOutput(engine, channel, ByteBuffer.allocate(packet)));
                    } catch (IOException e) {
                        // the client went away
                    }
                });
            }
        }
    }

    /** The application bytes of an engine over a blocking channel; {@code app} holds those not yet read. */
    record EngineInput(SSLEngine engine, SocketChannel channel, ByteBuffer net, ByteBuffer app) {
        InputStream stream() {
            return new InputStream() {
                @Override
                public int read() throws IOException {
                    byte[] one = new byte[1];
                    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
                }

                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    while (app.position() == 0) {
                        net.flip();
                        SSLEngineResult r = engine.unwrap(net, app);
                        net.compact();
                        if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
                            return -1;
                        }
                        if (r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW && channel.read(net) < 0) {
                            return -1;
                        }
                    }
                    app.flip();
                    int n = Math.min(len, app.remaining());
                    app.get(b, off, n);
                    app.compact();
                    return n;
                }
            };
        }
    }

    /** Writes through an engine: each write wrapped into records and sent whole (callers hold the connection's lock). */
    record EngineOutput(SSLEngine engine, SocketChannel channel, ByteBuffer net) {
        OutputStream stream() {
            return new OutputStream() {
                @Override
                public void write(int b) throws IOException {
                    write(new byte[] {(byte) b}, 0, 1);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    ByteBuffer src = ByteBuffer.wrap(b, off, len);
                    while (src.hasRemaining()) {
                        net.clear();
                        engine.wrap(src, net);
                        net.flip();
                        while (net.hasRemaining()) {
                            channel.write(net);
                        }
                    }
                }
            };
        }
    }

    private static void frames(EngineInput in, EngineOutput out) throws IOException {
        frames(in.stream(), out.stream());
    }

    /** One client connection's frames: the preface, then a virtual thread per HEADERS, answers to SETTINGS and PING. */
    static void frames(InputStream socketIn, OutputStream socketOut) throws IOException {
        DataInputStream in = new DataInputStream(new BufferedInputStream(socketIn, 8192));
        Client client = new Client(socketOut, new ReentrantLock());
        byte[] preface = new byte[PREFACE.length];
        in.readFully(preface);
        byte[] settings = {0, 0, 6, 4, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 100}; // MAX_CONCURRENT_STREAMS 100
        client.write(settings, settings.length);
        byte[] payload = new byte[16384];
        while (true) {
            int length = in.readUnsignedShort() << 8 | in.readUnsignedByte();
            int type = in.readUnsignedByte();
            int flags = in.readUnsignedByte();
            int streamId = in.readInt() & 0x7fffffff;
            if (length > payload.length) {
                return;
            }
            in.readFully(payload, 0, length);
            switch (type) {
                case 1 -> Thread.ofVirtual().start(() -> stream(client, streamId)); // HEADERS: a GET
                case 4 -> { // SETTINGS: acknowledge the client's
                    if ((flags & 1) == 0) {
                        byte[] ack = {0, 0, 0, 4, 1, 0, 0, 0, 0};
                        client.write(ack, ack.length);
                    }
                }
                case 6 -> { // PING
                    if ((flags & 1) == 0) {
                        byte[] pong = new byte[17];
                        pong[2] = 8;
                        pong[3] = 6;
                        pong[4] = 1;
                        System.arraycopy(payload, 0, pong, 9, 8);
                        client.write(pong, pong.length);
                    }
                }
                case 7 -> {
                    return; // GOAWAY
                }
                default -> { } // WINDOW_UPDATE, PRIORITY, RST_STREAM: the floor's answers are far below windows
            }
        }
    }

    private static void stream(Client client, int streamId) {
        Origin origin = POOL.pollFirst();
        try {
            if (origin == null) {
                origin = opener.open();
            }
            origin.out().write(request);
            byte[] answer = new byte[4096];
            int have = 0;
            int headEnd;
            while ((headEnd = indexOf(answer, have)) < 0) {
                int n = origin.in().read(answer, have, answer.length - have);
                if (n < 0) {
                    throw new IOException("origin closed");
                }
                have += n;
            }
            int bodyLength = contentLength(answer, headEnd);
            while (have < headEnd + bodyLength) {
                int n = origin.in().read(answer, have, answer.length - have);
                if (n < 0) {
                    throw new IOException("origin closed");
                }
                have += n;
            }
            POOL.addFirst(origin);
            origin = null;
            byte[] frames = frames(streamId, answer, headEnd, bodyLength);
            client.write(frames, frames.length);
        } catch (IOException e) {
            if (origin != null) {
                try {
                    origin.socket().close();
                } catch (IOException ignored) {
                    // closing a broken connection
                }
            }
        }
    }

    /** HEADERS (:status 200, content-length) and DATA with END_STREAM, in one array; {@code write} sends it whole. */
    private static byte[] frames(int streamId, byte[] answer, int bodyStart, int bodyLength) {
        byte[] length = Integer.toString(bodyLength).getBytes(StandardCharsets.US_ASCII);
        int headerBlock = 1 + 2 + 1 + length.length; // 0x88, content-length (static 28) literal, its value
        byte[] out = new byte[9 + headerBlock + 9 + bodyLength];
        frameHeader(out, 0, headerBlock, 1, 4, streamId);
        int p = 9;
        out[p++] = (byte) 0x88;
        out[p++] = 0x0f;
        out[p++] = 0x0d;
        out[p++] = (byte) length.length;
        System.arraycopy(length, 0, out, p, length.length);
        p += length.length;
        frameHeader(out, p, bodyLength, 0, 1, streamId);
        System.arraycopy(answer, bodyStart, out, p + 9, bodyLength);
        return out;
    }

    private static void frameHeader(byte[] out, int at, int length, int type, int flags, int streamId) {
        out[at] = (byte) (length >>> 16);
        out[at + 1] = (byte) (length >>> 8);
        out[at + 2] = (byte) length;
        out[at + 3] = (byte) type;
        out[at + 4] = (byte) flags;
        out[at + 5] = (byte) (streamId >>> 24);
        out[at + 6] = (byte) (streamId >>> 16);
        out[at + 7] = (byte) (streamId >>> 8);
        out[at + 8] = (byte) streamId;
    }

    /** The index just past the head's blank line, or -1 if it has not all arrived. */
    private static int indexOf(byte[] b, int have) {
        for (int i = 3; i < have; i++) {
            if (b[i] == '\n' && b[i - 1] == '\r' && b[i - 2] == '\n' && b[i - 3] == '\r') {
                return i + 1;
            }
        }
        return -1;
    }

    private static int contentLength(byte[] b, int headEnd) {
        String head = new String(b, 0, headEnd, StandardCharsets.ISO_8859_1).toLowerCase();
        int at = head.indexOf("content-length:");
        return Integer.parseInt(head.substring(at + 15, head.indexOf('\r', at)).trim());
    }
}
