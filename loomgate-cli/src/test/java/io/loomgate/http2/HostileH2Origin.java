package io.loomgate.http2;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * An HTTP/2 origin on raw sockets (h2c by prior knowledge, or TLS offering only {@code h2}) whose answer to each
 * request is a script chosen by the request's case, the second segment of its {@code :path}, run on its own thread
 * as soon as the request's HEADERS arrive. It decodes request heads with the product's HPACK decoder and writes
 * whatever frames a script asks for. It refunds the connection window for every DATA frame, and each stream's too
 * unless that stream's case is in {@link #neverOpen}.
 */
final class HostileH2Origin implements AutoCloseable {
    /**
     * A request as received: its fields (the last value of a repeated name), its stream, the connection's number,
     * and its field lines in order as decoded, "name: value", repeated names kept.
     */
    record Req(Map<String, String> fields, int stream, int connection, List<String> lines) {
        String path() {
            return fields.getOrDefault(":path", "");
        }

        String caseName() {
            String[] parts = path().split("/");
            return parts.length > 2 ? parts[2] : "";
        }
    }

    /**
     * One connection: frames out under a lock (scripts and the reader write). {@code socket} is the one frames go on,
     * {@code raw} the TCP socket under it (the same for h2c): closing {@code raw} ends a TLS connection without
     * close_notify.
     */
    static final class Conn {
        final Socket socket;
        final Socket raw;
        final int number;
        private final OutputStream out;
        private final ReentrantLock lock = new ReentrantLock();

        Conn(Socket socket, Socket raw, int number) throws IOException {
            this.socket = socket;
            this.raw = raw;
            this.number = number;
            this.out = socket.getOutputStream();
        }

        void frame(int type, int flags, int stream, byte[] payload) throws IOException {
            byte[] f = WireFrames.frame(type, flags, stream, payload);
            lock.lock();
            try {
                out.write(f);
                out.flush();
            } finally {
                lock.unlock();
            }
        }

        /** A HEADERS frame with these fields (literal, no indexing), END_HEADERS, and END_STREAM if asked. */
        void head(int stream, boolean endStream, String... namesAndValues) throws IOException {
            frame(Frames.HEADERS, Frames.FLAG_END_HEADERS | (endStream ? Frames.FLAG_END_STREAM : 0), stream,
                    WireFrames.block(namesAndValues));
        }

        /** Runs {@code r} holding the connection's writes: a header block no other frame may interrupt. */
        void alone(Script r, Req req) throws Exception {
            lock.lock();
            try {
                r.answer(req, this);
            } finally {
                lock.unlock();
            }
        }

        /** A frame written one byte at a time, {@code msPerByte} apart (the connection's other writes wait). */
        void trickle(int type, int flags, int stream, byte[] payload, long msPerByte) throws Exception {
            byte[] f = WireFrames.frame(type, flags, stream, payload);
            lock.lock();
            try {
                for (byte b : f) {
                    out.write(b);
                    out.flush();
                    Thread.sleep(msPerByte);
                }
            } finally {
                lock.unlock();
            }
        }

        /** A frame's header announcing {@code announced} bytes, and only {@code sent} zero bytes of its payload. */
        void cutFrame(int type, int stream, int announced, int sent) throws IOException {
            byte[] f = WireFrames.frame(type, 0, stream, new byte[announced]);
            lock.lock();
            try {
                out.write(f, 0, 9 + sent);
                out.flush();
            } finally {
                lock.unlock();
            }
        }

        void data(int stream, boolean endStream, String text) throws IOException {
            frame(Frames.DATA, endStream ? Frames.FLAG_END_STREAM : 0, stream, text.getBytes(StandardCharsets.UTF_8));
        }

        void rst(int stream, int code) throws IOException {
            frame(Frames.RST_STREAM, 0, stream, WireFrames.int32(code));
        }

        void goAway(int lastStream, int code) throws IOException {
            frame(Frames.GOAWAY, 0, 0, WireFrames.goAway(lastStream, code, ""));
        }
    }

    /** What the origin does with one request. */
    interface Script {
        void answer(Req r, Conn c) throws Exception;
    }

    private final ServerSocket server;
    private final SSLContext context;
    private final Map<String, Script> scripts = new ConcurrentHashMap<>();
    private final List<Req> received = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    /** The GOAWAYs the gateway sent: {connection number, error code}. */
    private final List<int[]> goAways = new CopyOnWriteArrayList<>();
    /** The connections whose reading ended (the gateway closed or reset them, or a script did). */
    private final Set<Integer> ended = ConcurrentHashMap.newKeySet();
    /** Cases whose streams never get a WINDOW_UPDATE: the gateway's upload stalls on flow control. */
    final Set<String> neverOpen = ConcurrentHashMap.newKeySet();
    /**
     * Cases whose connection the origin does not close when the gateway's side ends (its FIN): the script closes it
     * (an origin that goes on writing after our GOAWAY, whatever we do).
     */
    final Set<String> keepOpen = ConcurrentHashMap.newKeySet();
    /**
     * Cases whose request makes the origin open the connection's and the stream's windows to 2^31-1 and then stop
     * reading the connection for {@link #STOP_READING_MS} (an origin that stops reading our upload, not by flow
     * control): the gateway's writes to it block once the kernel's buffers are full.
     */
    final Set<String> stopReading = ConcurrentHashMap.newKeySet();
    static final long STOP_READING_MS = 20_000;
    private int connections;

    HostileH2Origin(SSLContext context) throws IOException {
        this.context = context;
        server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 200);
        Thread.ofVirtual().name("hostile-h2-accept").start(this::accept);
    }

    String uri() {
        return (context != null ? "https://localhost:" : "h2c://127.0.0.1:") + server.getLocalPort();
    }

    HostileH2Origin on(String caseName, Script script) {
        scripts.put(caseName, script);
        return this;
    }

    /** The error codes of the GOAWAYs the gateway sent on connection {@code number}. */
    List<Integer> goAwaysOn(int number) {
        return goAways.stream().filter(g -> g[0] == number).map(g -> g[1]).toList();
    }

    /** Whether connection {@code number} has ended. */
    boolean ended(int number) {
        return ended.contains(number);
    }

    /** The port the origin listens on. */
    int port() {
        return server.getLocalPort();
    }

    List<Req> receivedFor(String idSuffix) {
        return received.stream().filter(r -> r.path().endsWith(idSuffix)).toList();
    }

    /** The well-behaved answer: 200 with the request's path as body. */
    static void ok(Req r, Conn c) throws IOException {
        c.head(r.stream(), false, ":status", "200", "content-length", Integer.toString(r.path().length()));
        c.data(r.stream(), true, r.path());
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket raw = server.accept();
                raw.setTcpNoDelay(true);
                sockets.add(raw);
                int n = ++connections;
                Thread.ofVirtual().name("hostile-h2-conn-" + n).start(() -> serve(raw, n));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket raw, int number) {
        Map<Integer, String> caseOf = new ConcurrentHashMap<>();
        Socket s = raw;
        try {
            s = context != null ? wrap(raw) : raw;
            Conn c = new Conn(s, raw, number);
            DataInputStream in = new DataInputStream(s.getInputStream());
            in.readFully(new byte[Frames.PREFACE.length]);
            c.frame(Frames.SETTINGS, 0, 0, new byte[0]);
            HpackDecoder decoder = new HpackDecoder(4096);
            while (true) {
                RawH2Client.Frame f = WireFrames.read(in, RawH2Client.Frame::new);
                byte[] p = f.payload();
                int len = p.length;
                int flags = f.flags();
                int stream = f.stream();
                switch (f.type()) {
                    case Frames.SETTINGS -> {
                        if ((flags & Frames.FLAG_ACK) == 0) {
                            c.frame(Frames.SETTINGS, Frames.FLAG_ACK, 0, new byte[0]);
                        }
                    }
                    case Frames.PING -> {
                        if ((flags & Frames.FLAG_ACK) == 0) {
                            c.frame(Frames.PING, Frames.FLAG_ACK, 0, p);
                        }
                    }
                    case Frames.HEADERS -> {
                        byte[] block = WireFrames.blockOf(flags, p);
                        Map<String, String> fields = new LinkedHashMap<>();
                        List<String> lines = new ArrayList<>();
                        decoder.decode(block, block.length, Long.MAX_VALUE, (name, value) -> {
                            fields.put(name, value);
                            lines.add(name + ": " + value);
                        });
                        Req r = new Req(fields, stream, number, List.copyOf(lines));
                        received.add(r);
                        caseOf.put(stream, r.caseName());
                        if (stopReading.contains(r.caseName())) {
                            c.frame(Frames.WINDOW_UPDATE, 0, 0, WireFrames.int32(Integer.MAX_VALUE - 65_535));
                            c.frame(Frames.WINDOW_UPDATE, 0, stream, WireFrames.int32(Integer.MAX_VALUE - 65_535));
                            Thread.sleep(STOP_READING_MS);
                        }
                        Script script = scripts.getOrDefault(r.caseName(), HostileH2Origin::ok);
                        Thread.ofVirtual().start(() -> {
                            try {
                                script.answer(r, c);
                            } catch (Exception e) {
                                // the gateway went away, or the script ended the connection
                            }
                        });
                    }
                    case Frames.DATA -> {
                        if (len > 0) {
                            byte[] inc = WireFrames.int32(len);
                            c.frame(Frames.WINDOW_UPDATE, 0, 0, inc);
                            if ((flags & Frames.FLAG_END_STREAM) == 0
                                    && !neverOpen.contains(caseOf.getOrDefault(stream, ""))) {
                                c.frame(Frames.WINDOW_UPDATE, 0, stream, inc);
                            }
                        }
                    }
                    case Frames.GOAWAY -> goAways.add(new int[] {number, Frames.getInt(p, 4)});
                    default -> {
                        // WINDOW_UPDATE, RST_STREAM, PRIORITY: nothing to do
                    }
                }
            }
        } catch (Exception e) {
            // the gateway closed the connection, or a script did
        } finally {
            ended.add(number);
            if (caseOf.values().stream().noneMatch(keepOpen::contains)) {
                try {
                    s.close();
                } catch (IOException e) {
                    // closed either way
                }
            }
        }
    }

    private SSLSocket wrap(Socket raw) throws IOException {
        SSLSocket ssl = (SSLSocket) context.getSocketFactory().createSocket(raw, null, raw.getPort(), true);
        ssl.setUseClientMode(false);
        SSLParameters p = ssl.getSSLParameters();
        p.setApplicationProtocols(new String[] {"h2"});
        ssl.setSSLParameters(p);
        ssl.startHandshake();
        return ssl;
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : sockets) {
            s.close();
        }
    }
}
