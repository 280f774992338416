package io.loomgate.testkit;

import io.loomgate.threads.ConnectionExecutors;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * An origin for integration tests, on 127.0.0.1 and an ephemeral port, written on raw sockets with its own small
 * parser so it shares no code (and no bugs) with the gateway's codec. Each request is answered by the next scripted
 * {@link Reply} (or the default), and recorded with its connection number and its index on that connection, so "the
 * pool reused the connection" is one assertion.
 */
public final class TestOrigin implements AutoCloseable {

    /** A request as the origin received it. */
    public record Recorded(String method, String target, String version, List<String[]> headers, byte[] body,
                           Map<String, String> trailers, int connection, int indexOnConnection) {
        public String header(String name) {
            return WireText.first(headers, name);
        }

        public List<String> headers(String name) {
            return WireText.all(headers, name);
        }

        public String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /**
     * What a socket does besides answering. {@code BODY_FOR_HEAD}: the body pieces go out after the head to a HEAD
     * too (an origin's mistake), where every other reply sends a HEAD none.
     */
    public enum Effect { NONE, CLOSE_AFTER_RESPONSE, CLOSE_MID_BODY, NO_RESPONSE_CLOSE, STALL, BODY_FOR_HEAD }

    /**
     * A scripted answer: raw head lines are written as given (so a test can send a malformed head), then the body
     * pieces with a delay before each.
     */
    public record Reply(String statusLine, List<String> headerLines, List<byte[]> bodyPieces, Duration delay,
                        Duration pieceDelay, Effect effect, java.util.concurrent.CountDownLatch gate) {
        public Reply(String statusLine, List<String> headerLines, List<byte[]> bodyPieces, Duration delay,
                     Duration pieceDelay, Effect effect) {
            this(statusLine, headerLines, bodyPieces, delay, pieceDelay, effect, null);
        }

        /**
         * Each piece after the first waits for this latch ("send more once the client saw this"); if it stays
         * closed for 10 s the origin closes the connection mid-body instead.
         */
        public Reply gatedBy(java.util.concurrent.CountDownLatch latch) {
            return new Reply(statusLine, headerLines, bodyPieces, delay, pieceDelay, effect, latch);
        }

        public static Reply ok(String body) {
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            return new Reply("HTTP/1.1 200 OK", List.of("Content-Length: " + b.length), List.of(b), Duration.ZERO,
                    Duration.ZERO, Effect.NONE);
        }

        public static Reply status(int code) {
            return new Reply("HTTP/1.1 " + code + " X", List.of("Content-Length: 0"), List.of(), Duration.ZERO,
                    Duration.ZERO, Effect.NONE);
        }

        public static Reply raw(String statusLine, List<String> headerLines, String... pieces) {
            List<byte[]> p = new ArrayList<>();
            for (String s : pieces) {
                p.add(s.getBytes(StandardCharsets.ISO_8859_1));
            }
            return new Reply(statusLine, headerLines, p, Duration.ZERO, Duration.ZERO, Effect.NONE);
        }

        public Reply delayed(Duration d) {
            return new Reply(statusLine, headerLines, bodyPieces, d, pieceDelay, effect);
        }

        public Reply piecesEvery(Duration d) {
            return new Reply(statusLine, headerLines, bodyPieces, delay, d, effect);
        }

        public Reply with(Effect e) {
            return new Reply(statusLine, headerLines, bodyPieces, delay, pieceDelay, e);
        }
    }

    private final ServerSocket server;
    private final BlockingQueue<Recorded> requests = new LinkedBlockingQueue<>();
    private final List<Recorded> all = new CopyOnWriteArrayList<>();
    private final ConcurrentLinkedQueue<Reply> script = new ConcurrentLinkedQueue<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger open = new AtomicInteger();
    private volatile Function<Recorded, Reply> fallback = r -> Reply.ok("hello from origin");

    private final String scheme;

    public TestOrigin() throws IOException {
        this(new ServerSocket(), "http");
    }

    private TestOrigin(ServerSocket socket, String scheme) throws IOException {
        this(socket, scheme, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    private TestOrigin(ServerSocket socket, String scheme, InetSocketAddress bindTo) throws IOException {
        server = socket;
        this.scheme = scheme;
        server.bind(bindTo, 4096);
        ConnectionExecutors.startDaemon("test-origin-" + server.getLocalPort(), this::acceptLoop);
    }

    /**
     * A plain origin listening on this address and port (0: any free one), e.g. three origins on 127.0.0.2,
     * 127.0.0.3 and 127.0.0.4 with one port, the instances behind one host name.
     */
    public static TestOrigin at(InetAddress address, int port) throws IOException {
        return new TestOrigin(new ServerSocket(), "http", new InetSocketAddress(address, port));
    }

    /** An https origin presenting the context's certificate; {@code needClientAuth} requires a client certificate. */
    public static TestOrigin tls(javax.net.ssl.SSLContext context, boolean needClientAuth) throws IOException {
        javax.net.ssl.SSLServerSocket s = (javax.net.ssl.SSLServerSocket) context.getServerSocketFactory()
                .createServerSocket();
        s.setNeedClientAuth(needClientAuth);
        return new TestOrigin(s, "https");
    }

    public int port() {
        return server.getLocalPort();
    }

    public String uri() {
        return scheme + "://" + server.getInetAddress().getHostAddress() + ":" + port();
    }

    /** The same origin named by host name ({@code https://localhost:port}), for certificate name checks. */
    public String uri(String host) {
        return scheme + "://" + host + ":" + port();
    }

    /** Answers the next request(s) with these, in order; after them the fallback answers. */
    public TestOrigin enqueue(Reply... replies) {
        script.addAll(List.of(replies));
        return this;
    }

    /** Answers every request not scripted by {@link #enqueue}. */
    public TestOrigin fallback(Function<Recorded, Reply> f) {
        this.fallback = f;
        return this;
    }

    /** The next request received, waiting up to 5 s. */
    public Recorded takeRequest() throws InterruptedException {
        Recorded r = requests.poll(5, TimeUnit.SECONDS);
        if (r == null) {
            throw new AssertionError("the origin received no request within 5 s");
        }
        return r;
    }

    public List<Recorded> received() {
        return List.copyOf(all);
    }

    public int requestCount() {
        return all.size();
    }

    public int connectionCount() {
        return connections.get();
    }

    /** Connections open now: accepted and not yet closed by either side. */
    public int openConnectionCount() {
        return open.get();
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                s.setTcpNoDelay(true); // head and body go out in separate writes: no Nagle + delayed-ACK stalls
                sockets.add(s);
                int n = connections.incrementAndGet();
                open.incrementAndGet();
                ConnectionExecutors.startVirtual("test-origin-conn-" + n, () -> serve(s, n));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket s, int connection) {
        try (s) {
            InputStream in = new java.io.BufferedInputStream(s.getInputStream());
            OutputStream out = s.getOutputStream();
            for (int index = 0; ; index++) {
                Recorded r = readRequest(in, connection, index);
                if (r == null) {
                    return;
                }
                all.add(r);
                requests.add(r);
                Reply reply = script.poll();
                if (reply == null) {
                    reply = fallback.apply(r);
                }
                if (!answer(reply, out, r)) {
                    return;
                }
            }
        } catch (IOException e) {
            // the gateway closed the connection: fine for an origin
        } finally {
            open.decrementAndGet();
        }
    }

    /** Writes the reply; returns whether the connection stays open. */
    private boolean answer(Reply reply, OutputStream out, Recorded r) throws IOException {
        sleep(reply.delay());
        if (reply.effect() == Effect.NO_RESPONSE_CLOSE) {
            return false;
        }
        if (reply.effect() == Effect.STALL) {
            sleep(Duration.ofSeconds(30));
            return false;
        }
        StringBuilder head = new StringBuilder(reply.statusLine()).append("\r\n");
        for (String h : reply.headerLines()) {
            head.append(h).append("\r\n");
        }
        head.append("\r\n");
        out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        boolean headRequest = r.method().equals("HEAD") && reply.effect() != Effect.BODY_FOR_HEAD;
        List<byte[]> pieces = headRequest ? List.of() : reply.bodyPieces();
        for (int i = 0; i < pieces.size(); i++) {
            if (i > 0) {
                sleep(reply.pieceDelay());
                if (reply.gate() != null && !await(reply.gate())) {
                    return false; // nobody opened the gate: the origin gives up and closes mid-body
                }
            }
            if (reply.effect() == Effect.CLOSE_MID_BODY && i == pieces.size() - 1) {
                return false;
            }
            out.write(pieces.get(i));
            out.flush();
        }
        return reply.effect() != Effect.CLOSE_AFTER_RESPONSE;
    }

    private static boolean await(java.util.concurrent.CountDownLatch latch) {
        try {
            return latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void sleep(Duration d) {
        if (d.isZero()) {
            return;
        }
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Recorded readRequest(InputStream in, int connection, int index) throws IOException {
        String line = WireText.readLine(in, true);
        if (line == null) {
            return null;
        }
        String[] parts = line.split(" ", 3);
        if (parts.length != 3) {
            throw new IOException("bad request line: " + line);
        }
        List<String[]> headers = WireText.readFields(in, true);
        byte[] body = new byte[0];
        Map<String, String> trailers = new LinkedHashMap<>();
        String te = WireText.first(headers, "transfer-encoding");
        String cl = WireText.first(headers, "content-length");
        if (te != null && te.toLowerCase(Locale.ROOT).contains("chunked")) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            while (true) {
                String size = WireText.readLine(in, true);
                int semi = size.indexOf(';');
                int n = Integer.parseInt((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
                if (n == 0) {
                    for (String[] t : WireText.readFields(in, true)) {
                        trailers.put(t[0], t[1]);
                    }
                    break;
                }
                b.write(in.readNBytes(n));
                WireText.readLine(in, true);
            }
            body = b.toByteArray();
        } else if (cl != null) {
            body = in.readNBytes(Integer.parseInt(cl.trim()));
        }
        return new Recorded(parts[0], parts[1], parts[2], headers, body, trailers, connection, index);
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : sockets) {
            s.close();
        }
    }
}
