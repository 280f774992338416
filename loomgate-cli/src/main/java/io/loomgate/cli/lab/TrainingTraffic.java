package io.loomgate.cli.lab;

import com.sun.management.UnixOperatingSystemMXBean;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * The training run's traffic, with the JDK's HTTP client (in the trainer's JVM, so none of its classes land in the
 * gateway's cache): rounds of HTTP/1.1 and h2 over TLS on kept-alive connections (GET, a POST body echoed, a 100 KB
 * download), new connections (full handshakes), the plain redirect listener and the admin endpoints; and on the plain
 * listener the same over HTTP/1.1 and h2c (h2c through the TLS listener's {@code /h2c/**} route, the JDK's client
 * speaking no h2c with prior knowledge) and a crowd of idle keep-alive connections opened at once, for a fixed number
 * of rounds; and where the gateway runs its third listener on epoll, HTTP/1.1 kept alive on it to the origin (HTTP/1.1
 * and h2c, over epoll too) and a few idle connections. Every answer is checked: a gateway that fails here would train a cache on its error paths.
 */
final class TrainingTraffic {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int CONCURRENCY = 8;
    private static final byte[] BODY = new byte[8192];
    /**
     * Idle keep-alive connections opened at once per round: the harness's W3 opens 10,000, and without this the JIT
     * compiled the accept and park path while W3 measured, its arenas in the RSS (docs/journal/2026-11-30-s43-w3warm.md).
     */
    private static final int IDLE_CROWD = 3000;
    /**
     * Kept-alive connections per round (half plain, half over TLS) that the client then resets (RST) as a load
     * generator does when its run ends (wrk, h2load: every connection closed with answers in flight or unread).
     * Without them the training's profiles never saw a read fail, so C2 compiled the gateway's read
     * (`WatchedInputStream`, the JDK's `SocketChannelImpl`) with the failure as an uncommon trap; at the end of the
     * harness's first 5 s warm-up round wrk's 256 connections reset at once and up to 500 parked threads deoptimised
     * there, and the connection loop was compiled again (docs/journal/2026-11-30-s45-jitwarm.md).
     */
    private static final int RESETS = 32;
    /**
     * h2-over-TLS connections per round whose client sends a frame in a TLS record of its own (a SETTINGS ack, then a
     * PING), as h2load does: the gateway's 9-byte frame-header read then ends exactly at a record's end. The JDK's
     * client never did that, so C2 compiled that branch of `EngineChannel.read` as a trap; in the harness's W9 (its
     * warm-up HTTP/1.1 over TLS) 194 stream threads deoptimised there at the first h2 requests and the read was
     * compiled again 8 s later, in W9's window (docs/journal/2026-11-30-s45-jitwarm.md).
     */
    private static final int H2_OWN_RECORDS = 16;
    /**
     * h2 connections per round closed by the client with {@code STREAMS_AT_CLOSE} streams each waiting on the
     * origin's answer, as h2load ends every timed run (-D): the gateway's reader ends the connection, every open
     * stream is cancelled, and each upstream attempt turns into a drain (or an abort) whose exception ends the
     * exchange. Without them that path was in no profile the training made: at W9 the ~2,000 streams h2load's 3 s run
     * leaves open deoptimised at once (UpstreamAttempt.draining, UpstreamForwarder.proceed's catch,
     * ProxyHandler.exchange, ServerFrames.runStream) and the proxy path's largest C2 roots were compiled again inside
     * the measured window (docs/journal/2026-11-30-s46-w9cancel.md). The origin's delay is under
     * DrainAfterCancel's wait, so the drain ends with the answer, as with the harness's 100 ms origin. Half of them
     * are h2c on the plain listener, whose gateway has no access log: the failure path's calls to the exchange
     * listener then have both listener types in their profile, not only the TLS listener's (its access log makes it
     * a composite), so a deployment with either is not a type check that fails on every cancelled stream.
     */
    private static final int H2_CLOSES = 8;
    private static final int STREAMS_AT_CLOSE = 25;
    /**
     * Kept-alive connections per round on the epoll listener (HTTP/1.1, and h2c to the origin), and idle ones opened
     * there at once. Enough to load and link what a start on epoll needs (the foreign-function linker, a downcall
     * stub per libc call, epoll's poller and idle parking) and give epoll's own methods profiles; few beside the
     * JDK listeners' traffic, so the shared connection code's call sites keep the JDK's socket streams as their
     * major receiver in the profiles a start on the default transport compiles from.
     */
    private static final int EPOLL_CONCURRENCY = 2;
    private static final int EPOLL_IDLE = 32;
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HELLO = "GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            .getBytes(StandardCharsets.US_ASCII);
    /** Descriptors kept for everything but the crowd: the JVM's jars and files, the pools, the other rounds. */
    private static final int DESCRIPTORS_KEPT = 256;

    private final TrainingGateway.Setup setup;
    private final boolean onEpoll;
    private final SSLContext tls;
    private final AtomicInteger http1 = new AtomicInteger();
    private final AtomicInteger h2 = new AtomicInteger();
    private final AtomicInteger handshakes = new AtomicInteger();
    private final AtomicInteger admin = new AtomicInteger();
    private final AtomicInteger plainHttp1 = new AtomicInteger();
    private final AtomicInteger h2c = new AtomicInteger();
    private final AtomicInteger idle = new AtomicInteger();
    private final AtomicInteger resets = new AtomicInteger();
    private final AtomicInteger ownRecords = new AtomicInteger();
    private final AtomicInteger openAtClose = new AtomicInteger();
    private final AtomicInteger epoll = new AtomicInteger();

    /** Requests sent, by kind, and the rounds sent of those asked for, for the command's last line. */
    record Counts(int rounds, int roundsAsked, int http1, int h2, int handshakes, int admin, int plainHttp1, int h2c,
                  int idle, int resets, int ownRecords, int openAtClose, int epoll) {
        /** The requests sent (every kind but the resets, the frames per record and the streams open at close). */
        int requests() {
            return http1 + h2 + handshakes + admin + plainHttp1 + h2c + idle + epoll;
        }

        @Override
        public String toString() {
            return ("%d requests in %d of %d rounds (HTTP/1.1 over TLS %d, h2 %d, new TLS connections %d, admin and "
                    + "redirect %d, plain HTTP/1.1 %d, h2c %d, idle keep-alive connections %d, connections reset by "
                    + "the client %d, h2 connections with a frame per record %d, h2 streams open when the client "
                    + "closed %d, on epoll %d)")
                    .formatted(requests(), rounds, roundsAsked, http1, h2, handshakes, admin, plainHttp1, h2c, idle,
                            resets, ownRecords, openAtClose, epoll);
        }
    }

    /** The traffic for {@code setup}'s listeners; the epoll listener's only when it runs on epoll. */
    TrainingTraffic(TrainingGateway.Setup setup, boolean onEpoll) throws IOException {
        this.setup = setup;
        this.onEpoll = onEpoll;
        try (InputStream in = Files.newInputStream(setup.keyStore())) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(in, TrainingGateway.PASSWORD.toCharArray());
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ks);
            tls = SSLContext.getInstance("TLS");
            tls.init(null, tmf.getTrustManagers(), null);
        } catch (GeneralSecurityException e) {
            throw new IOException("the training key store cannot be read: " + e.getMessage(), e);
        }
    }

    /**
     * Sends {@code rounds} rounds, each the same traffic, so that every build's cache is trained on the same amount
     * whatever the machine's speed (until session 53 rounds ran until a duration had passed: one round on a loaded
     * machine, two on an idle one, and measured builds differed). Each round's end is printed with its time. When
     * {@code timeLimit} has passed at a round's end with rounds still to go, no more are sent: the counts then say
     * fewer rounds than asked, and the command warns.
     */
    Counts run(int rounds, Duration timeLimit) throws IOException, InterruptedException {
        long start = System.nanoTime();
        int done = 0;
        try (HttpClient one = client(HttpClient.Version.HTTP_1_1); HttpClient two = client(HttpClient.Version.HTTP_2)) {
            while (done < rounds) {
                long roundStart = System.nanoTime();
                round(one, two);
                done++;
                long now = System.nanoTime();
                System.out.printf("aot-train: round %d of %d sent in %.1f s (%d requests so far)%n", done, rounds,
                        (now - roundStart) / 1e9, counts(done, rounds).requests());
                if (done < rounds && now - start >= timeLimit.toNanos()) {
                    break;
                }
            }
        }
        return counts(done, rounds);
    }

    /** One round: every kind of traffic once. */
    private void round(HttpClient one, HttpClient two) throws IOException, InterruptedException {
        String tls = "https://127.0.0.1:" + setup.ports().tls();
        keptAlive(one, tls, http1);
        keptAlive(two, tls, h2);
        keptAlive(one, "http://127.0.0.1:" + setup.ports().plain(), plainHttp1);
        keptAlive(two, tls + "/h2c", h2c);
        newConnections();
        plainListeners();
        idleCrowd();
        resetByClient();
        framesInOwnRecords();
        streamsOpenAtClose();
        if (onEpoll) {
            String base = "http://127.0.0.1:" + setup.ports().epoll();
            keptAlive(one, base, epoll, EPOLL_CONCURRENCY);
            keptAlive(one, base + "/h2c", epoll, EPOLL_CONCURRENCY);
            idle(setup.ports().epoll(), Math.min(EPOLL_IDLE, crowdThatFits(descriptorLimit())), epoll);
        }
    }

    private Counts counts(int rounds, int roundsAsked) {
        return new Counts(rounds, roundsAsked, http1.get(), h2.get(), handshakes.get(), admin.get(), plainHttp1.get(),
                h2c.get(), idle.get(), resets.get(), ownRecords.get(), openAtClose.get(), epoll.get());
    }

    /** {@code CONCURRENCY} streams or connections at once, each a GET, a GET with filters, a POST and a download. */
    private void keptAlive(HttpClient client, String base, AtomicInteger count) throws IOException,
            InterruptedException {
        keptAlive(client, base, count, CONCURRENCY);
    }

    private void keptAlive(HttpClient client, String base, AtomicInteger count, int concurrency) throws IOException,
            InterruptedException {
        List<Future<?>> running = new ArrayList<>();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < concurrency; i++) {
                running.add(pool.submit(() -> {
                    for (int j = 0; j < 5; j++) {
                        expect(client, get(base + "/hello"), 200, count);
                        expect(client, get(base + "/api/data?delay=0"), 200, count);
                        expect(client, HttpRequest.newBuilder(URI.create(base + "/echo")).timeout(TIMEOUT)
                                .POST(HttpRequest.BodyPublishers.ofByteArray(BODY)).build(), 200, count);
                        expect(client, get(base + "/bytes/100000"), 200, count);
                    }
                    return null;
                }));
            }
        }
        await(running);
    }

    /** A client each: a full TLS handshake per request, over HTTP/1.1 and h2 in turn. */
    private void newConnections() throws IOException, InterruptedException {
        for (int i = 0; i < 4; i++) {
            try (HttpClient fresh = client(i % 2 == 0 ? HttpClient.Version.HTTP_1_1 : HttpClient.Version.HTTP_2)) {
                expect(fresh, get("https://127.0.0.1:" + setup.ports().tls() + "/hello"), 200, handshakes);
            }
        }
    }

    /** The redirect listener's 308 and the admin listener, with and without its token. */
    private void plainListeners() throws IOException, InterruptedException {
        try (HttpClient client = client(HttpClient.Version.HTTP_1_1)) {
            expect(client, get("http://127.0.0.1:" + setup.ports().redirect() + "/hello"), 308, admin);
            String base = "http://127.0.0.1:" + setup.ports().admin();
            expect(client, get(base + "/health/live"), 200, admin);
            expect(client, get(base + "/health/ready"), 200, admin);
            expect(client, get(base + "/metrics"), 401, admin);
            for (String path : List.of("/metrics", "/routes")) {
                expect(client, HttpRequest.newBuilder(URI.create(base + path)).timeout(TIMEOUT)
                        .header("Authorization", "Bearer " + TrainingGateway.ADMIN_TOKEN).build(), 200, admin);
            }
        }
    }

    /**
     * As many connections as the descriptor limit leaves room for ({@link #crowdThatFits}, up to {@code IDLE_CROWD})
     * to the plain listener at once, each one GET answered and then left idle (as the
     * harness's W3 holds them), all held until the last has its answer, then closed.
     */
    private void idleCrowd() throws IOException, InterruptedException {
        idle(setup.ports().plain(), crowdThatFits(descriptorLimit()), idle);
    }

    /** {@code crowd} connections to {@code port} at once, each one GET answered, then idle until all have theirs. */
    private void idle(int port, int crowd, AtomicInteger count) throws IOException, InterruptedException {
        List<Socket> open = new ArrayList<>();
        List<Future<?>> running = new ArrayList<>();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < crowd; i++) {
                Socket s = new Socket();
                open.add(s);
                running.add(pool.submit(() -> {
                    oneRequest(s, port, count);
                    return null;
                }));
            }
        } finally {
            try {
                await(running);
            } finally {
                for (Socket s : open) {
                    s.close();
                }
            }
        }
    }

    /**
     * {@code RESETS} connections at once, half plain and half HTTP/1.1 over TLS, each a few GETs answered in full,
     * then one more sent and the connection reset at once (SO_LINGER 0; over TLS with no close_notify first): half
     * while the gateway waits for the next request, half with the request in flight, as a load generator's
     * connections end. Counted when the reset is sent; the gateway's side of it (a read or write that fails) is what
     * is trained.
     */
    private void resetByClient() throws IOException, InterruptedException {
        List<Future<?>> running = new ArrayList<>();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < RESETS; i++) {
                boolean inFlight = i % 2 == 1;
                boolean overTls = i % 4 >= 2;
                running.add(pool.submit(() -> {
                    try (Socket raw = new Socket()) {
                        int port = overTls ? setup.ports().tls() : setup.ports().plain();
                        raw.connect(new InetSocketAddress("127.0.0.1", port), (int) TIMEOUT.toMillis());
                        raw.setSoTimeout((int) TIMEOUT.toMillis());
                        Socket s = raw;
                        if (overTls) {
                            SSLSocket ssl = (SSLSocket) tls.getSocketFactory().createSocket(raw, "127.0.0.1", port,
                                    true);
                            SSLParameters params = ssl.getSSLParameters();
                            params.setApplicationProtocols(new String[] {"http/1.1"});
                            ssl.setSSLParameters(params);
                            ssl.startHandshake();
                            s = ssl;
                        }
                        OutputStream out = s.getOutputStream();
                        InputStream in = s.getInputStream();
                        for (int j = 0; j < 5; j++) {
                            out.write(HELLO);
                            out.flush();
                            readResponse(in);
                        }
                        if (inFlight) {
                            out.write(HELLO);
                            out.flush();
                        }
                        raw.setSoLinger(true, 0); // closing the TCP socket sends RST, not FIN (nor close_notify)
                    }
                    resets.incrementAndGet();
                    return null;
                }));
            }
        }
        await(running);
    }

    /**
     * {@code H2_OWN_RECORDS} h2-over-TLS connections at once, each: the preface and an empty SETTINGS, then the ack of
     * the gateway's SETTINGS and a PING each in a record of its own (one write each), until the PING's ack comes back;
     * then the connection is closed. Counted when the PING's ack has come.
     */
    private void framesInOwnRecords() throws IOException, InterruptedException {
        List<Future<?>> running = new ArrayList<>();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < H2_OWN_RECORDS; i++) {
                running.add(pool.submit(() -> {
                    try (SSLSocket s = h2Socket()) {
                        OutputStream out = s.getOutputStream();
                        InputStream in = s.getInputStream();
                        byte[] opening = new byte[PREFACE.length + 9];
                        System.arraycopy(PREFACE, 0, opening, 0, PREFACE.length);
                        opening[PREFACE.length + 3] = 0x4; // an empty SETTINGS frame
                        out.write(opening);
                        out.flush();
                        out.write(new byte[] {0, 0, 0, 0x4, 0x1, 0, 0, 0, 0}); // SETTINGS ack: a record of its own
                        out.flush();
                        out.write(new byte[] {0, 0, 8, 0x6, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8}); // PING, likewise
                        out.flush();
                        awaitPingAck(in);
                    }
                    ownRecords.incrementAndGet();
                    return null;
                }));
            }
        }
        await(running);
    }

    /**
     * {@code H2_CLOSES} h2 connections at once (half over TLS, half h2c on the plain listener), each: {@code STREAMS_AT_CLOSE} GETs of {@code
     * /api/data?delay=100} (the origin answers in 0.1 s), then one GET of {@code /hello}; when that one's answer has
     * ended (the slow streams, opened before it, are waiting on the origin by then) the client closes the connection
     * with them open, as h2load does when its run's time is up. Counted per open stream when the connection is closed.
     */
    private void streamsOpenAtClose() throws IOException, InterruptedException {
        List<Future<?>> running = new ArrayList<>();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < H2_CLOSES; i++) {
                boolean overTls = i % 2 == 0;
                running.add(pool.submit(() -> {
                    try (Socket s = overTls ? h2Socket() : plainSocket()) {
                        OutputStream out = s.getOutputStream();
                        byte[] opening = new byte[PREFACE.length + 9];
                        System.arraycopy(PREFACE, 0, opening, 0, PREFACE.length);
                        opening[PREFACE.length + 3] = 0x4; // an empty SETTINGS frame
                        out.write(opening);
                        String authority = "127.0.0.1:" + s.getPort();
                        int fast = 2 * STREAMS_AT_CLOSE + 1;
                        for (int stream = 1; stream < fast; stream += 2) {
                            out.write(getFrame(stream, overTls, "/api/data?delay=100", authority));
                        }
                        out.write(getFrame(fast, overTls, "/hello", authority));
                        out.flush();
                        awaitStreamEnd(s.getInputStream(), fast);
                    }
                    openAtClose.addAndGet(STREAMS_AT_CLOSE);
                    return null;
                }));
            }
        }
        await(running);
    }

    /** A connection to the plain listener (h2c with prior knowledge). */
    private Socket plainSocket() throws IOException {
        Socket s = new Socket();
        try {
            s.connect(new InetSocketAddress("127.0.0.1", setup.ports().plain()), (int) TIMEOUT.toMillis());
            s.setSoTimeout((int) TIMEOUT.toMillis());
            return s;
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }

    /** A TLS connection to the gateway on which ALPN chose h2. */
    private SSLSocket h2Socket() throws IOException {
        SSLSocket s = (SSLSocket) tls.getSocketFactory().createSocket();
        try {
            s.connect(new InetSocketAddress("127.0.0.1", setup.ports().tls()), (int) TIMEOUT.toMillis());
            s.setSoTimeout((int) TIMEOUT.toMillis());
            SSLParameters params = s.getSSLParameters();
            params.setApplicationProtocols(new String[] {"h2"});
            s.setSSLParameters(params);
            s.startHandshake();
            if (!"h2".equals(s.getApplicationProtocol())) {
                throw new IOException("the TLS listener chose '" + s.getApplicationProtocol() + "' over h2");
            }
            return s;
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }

    /**
     * A HEADERS frame (END_STREAM, END_HEADERS) of a GET: HPACK's indexed :method GET and :scheme (https or http),
     * then :path and :authority as literals without indexing on the static table's names (no Huffman coding).
     */
    private static byte[] getFrame(int stream, boolean https, String path, String authority) {
        byte[] p = path.getBytes(StandardCharsets.US_ASCII);
        byte[] a = authority.getBytes(StandardCharsets.US_ASCII);
        int length = 2 + 2 + p.length + 2 + a.length;
        byte[] f = new byte[9 + length];
        f[0] = (byte) (length >>> 16);
        f[1] = (byte) (length >>> 8);
        f[2] = (byte) length;
        f[3] = 0x1; // HEADERS
        f[4] = 0x5; // END_STREAM | END_HEADERS
        f[5] = (byte) (stream >>> 24);
        f[6] = (byte) (stream >>> 16);
        f[7] = (byte) (stream >>> 8);
        f[8] = (byte) stream;
        int at = 9;
        f[at++] = (byte) 0x82; // :method GET
        f[at++] = (byte) (https ? 0x87 : 0x86); // :scheme https or http
        f[at++] = 0x04; // :path, literal without indexing
        f[at++] = (byte) p.length;
        System.arraycopy(p, 0, f, at, p.length);
        at += p.length;
        f[at++] = 0x01; // :authority, literal without indexing
        f[at++] = (byte) a.length;
        System.arraycopy(a, 0, f, at, a.length);
        return f;
    }

    /** Reads the gateway's frames until one of {@code stream} with END_STREAM; a GOAWAY or RST_STREAM is an error. */
    private static void awaitStreamEnd(InputStream in, int stream) throws IOException {
        while (true) {
            byte[] head = in.readNBytes(9);
            if (head.length < 9) {
                throw new IOException("the h2 connection ended before stream " + stream + "'s answer");
            }
            int length = ((head[0] & 0xff) << 16) | ((head[1] & 0xff) << 8) | (head[2] & 0xff);
            int id = ((head[5] & 0x7f) << 24) | ((head[6] & 0xff) << 16) | ((head[7] & 0xff) << 8) | (head[8] & 0xff);
            if (in.readNBytes(length).length != length) {
                throw new IOException("the h2 connection ended inside a frame");
            }
            if (head[3] == 0x7 || head[3] == 0x3) {
                throw new IOException("the gateway sent " + (head[3] == 0x7 ? "GOAWAY" : "RST_STREAM on " + id)
                        + " to the connection with streams waiting on the origin");
            }
            if (id == stream && (head[3] == 0x0 || head[3] == 0x1) && (head[4] & 0x1) != 0) {
                return;
            }
        }
    }

    /** Reads the gateway's frames until a PING with the ACK flag. */
    private static void awaitPingAck(InputStream in) throws IOException {
        while (true) {
            byte[] head = in.readNBytes(9);
            if (head.length < 9) {
                throw new IOException("the h2 connection ended before its PING was acknowledged");
            }
            int length = ((head[0] & 0xff) << 16) | ((head[1] & 0xff) << 8) | (head[2] & 0xff);
            if (in.readNBytes(length).length != length) {
                throw new IOException("the h2 connection ended inside a frame");
            }
            if (head[3] == 0x7) {
                throw new IOException("the gateway sent GOAWAY to a SETTINGS ack and a PING");
            }
            if (head[3] == 0x6 && (head[4] & 0x1) != 0) {
                return;
            }
        }
    }

    /** One response with a Content-Length body, read in full; anything but a 200 is an error. */
    private static void readResponse(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (head.length() < 4 || !head.substring(head.length() - 4).equals("\r\n\r\n")) {
            int c = in.read();
            if (c < 0 || head.length() > 8192) {
                throw new IOException("a reset connection's GET /hello got no whole response head: " + head);
            }
            head.append((char) c);
        }
        String h = head.toString();
        if (!h.startsWith("HTTP/1.1 200")) {
            throw new IOException("a reset connection's GET /hello answered '" + h.lines().findFirst().orElse("")
                    + "'");
        }
        long length = h.lines().filter(l -> l.regionMatches(true, 0, "content-length:", 0, 15))
                .mapToLong(l -> Long.parseLong(l.substring(15).trim())).findFirst()
                .orElseThrow(() -> new IOException("a reset connection's GET /hello had no Content-Length"));
        if (in.readNBytes((int) length).length != length) {
            throw new IOException("a reset connection's GET /hello body ended early");
        }
    }

    /**
     * The crowd a descriptor limit leaves room for, up to {@code IDLE_CROWD}: each idle connection is two descriptors
     * in this JVM (the client's socket and, the origin being here, the one it accepted from the gateway) and two in
     * the gateway's, which inherits this limit. A container build's limit is often 1,024 (podman's `build` gives its
     * steps 1,024:1,024), which fits 384; the 3,000 of a host's limit made the image's training fail (the origin's
     * accepts ran out and the gateway answered 504).
     */
    static int crowdThatFits(long descriptorLimit) {
        return (int) Math.max(0, Math.min(IDLE_CROWD, (descriptorLimit - DESCRIPTORS_KEPT) / 2));
    }

    /** This JVM's open-file limit (Long.MAX_VALUE where the platform has none to tell). */
    private static long descriptorLimit() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean unix
                ? unix.getMaxFileDescriptorCount() : Long.MAX_VALUE;
    }

    private static void oneRequest(Socket s, int port, AtomicInteger count) throws IOException {
        s.connect(new InetSocketAddress("127.0.0.1", port), (int) TIMEOUT.toMillis());
        s.setSoTimeout((int) TIMEOUT.toMillis());
        OutputStream out = s.getOutputStream();
        out.write(HELLO);
        out.flush();
        // the status line is enough: the connection stays open and idle behind it, its answer's rest unread
        InputStream in = s.getInputStream();
        byte[] status = in.readNBytes(12);
        String line = new String(status, StandardCharsets.US_ASCII);
        if (!line.equals("HTTP/1.1 200")) {
            throw new IOException("an idle connection's GET /hello answered '" + line + "'");
        }
        count.incrementAndGet();
    }

    private HttpClient client(HttpClient.Version version) {
        return HttpClient.newBuilder().version(version).sslContext(tls).connectTimeout(TIMEOUT)
                .followRedirects(HttpClient.Redirect.NEVER).build();
    }

    private static HttpRequest get(String url) {
        return HttpRequest.newBuilder(URI.create(url)).timeout(TIMEOUT).build();
    }

    private static void expect(HttpClient client, HttpRequest request, int status, AtomicInteger count)
            throws IOException, InterruptedException {
        HttpResponse<byte[]> r = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
        if (r.statusCode() != status) {
            throw new IOException(request.method() + " " + request.uri() + " answered " + r.statusCode()
                    + ", expected " + status);
        }
        count.incrementAndGet();
    }

    private static void await(List<Future<?>> running) throws IOException, InterruptedException {
        for (Future<?> f : running) {
            try {
                f.get();
            } catch (ExecutionException e) {
                throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
            }
        }
    }
}
