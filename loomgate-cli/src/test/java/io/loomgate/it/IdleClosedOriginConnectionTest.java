package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.cli.Gateway;
import io.loomgate.config.ConfigLoader;
import io.loomgate.server.Listener;
import io.loomgate.server.ServerExchange;
import io.loomgate.server.Transport;
import io.loomgate.testkit.TestPki;
import io.loomgate.tls.TlsProvider;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An origin that closes a keep-alive connection it finds idle for a moment (a Node or Go origin's keep-alive timeout,
 * shorter than the gateway's pool idle time: the everyday case) while the connection sits in the gateway's pool. The
 * next request through that pool must get its answer, never a 502, and the origin must see it exactly once: a GET,
 * and a POST with a body, fixed and chunked (never retried after its bytes may have reached the origin, so the
 * gateway must notice the close at the lease). Every origin kind (HTTP/1.1 plain and over TLS, h2c, h2 over TLS),
 * each way of closing (FIN; TLS close_notify then FIN; a bare FIN under TLS; an RST), both upstream TLS providers and
 * both transports (epoll where it runs). Each case waits until the origin has closed the pooled connection (its count
 * of open connections), then sends the request under test: the FIN or RST is in the gateway's kernel by then, as it
 * would be for a request that comes later than the origin's timeout.
 */
class IdleClosedOriginConnectionTest {
    /** The origins' keep-alive timeout: far below the gateway's pool idle time (60 s) and its 1 s plain probe. */
    private static final Duration ORIGIN_IDLE = Duration.ofMillis(200);
    private static final long WAIT_NANOS = Duration.ofSeconds(20).toNanos();
    private static final byte[] BODY = "a body the origin must see once".repeat(100).getBytes(StandardCharsets.UTF_8);

    private static TestPki pki;
    private static TestPki.Issued cert;
    private static final List<AutoCloseable> closing = new ArrayList<>();
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    /** Tries per request id, over every origin. */
    private static final Map<String, AtomicInteger> tries = new ConcurrentHashMap<>();
    private static final Map<String, Integer> bodyBytes = new ConcurrentHashMap<>();
    private static final AtomicInteger ids = new AtomicInteger();

    /** An origin and how to tell it has closed every connection. */
    private record Origin(String name, String uri, IntSupplier open, boolean http2) {
    }

    private static final List<Origin> origins = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        TestPki.requireOpenssl();
        pki = TestPki.create("idle close CA");
        cert = pki.issue("idle-origin", "localhost", "localhost");
        // the project's own listener, closing idle connections after ORIGIN_IDLE: FIN (TLS: close_notify then FIN),
        // HTTP/2 a GOAWAY first
        origins.add(listenerOrigin("http (listener, FIN)", "http://127.0.0.1:%d", null, false));
        origins.add(listenerOrigin("h2c (listener, GOAWAY, FIN)", "h2c://127.0.0.1:%d", null, true));
        origins.add(listenerOrigin("https (listener, close_notify, FIN)", "https://localhost:%d",
                List.of("http/1.1"), false));
        origins.add(listenerOrigin("h2 (listener, GOAWAY, close_notify, FIN)", "https://localhost:%d",
                List.of("h2", "http/1.1"), true));
        // a bare HTTP/1.1 origin closing the TCP connection its own way
        for (RawOrigin.Close close : RawOrigin.Close.values()) {
            for (boolean tls : new boolean[] {false, true}) {
                if (!tls && close == RawOrigin.Close.CLOSE_NOTIFY) {
                    continue;
                }
                RawOrigin o = new RawOrigin(tls ? pki.serverContext(cert) : null, close);
                closing.add(o);
                origins.add(new Origin((tls ? "https" : "http") + " (raw, " + close.label + ")",
                        (tls ? "https://localhost:" : "http://127.0.0.1:") + o.port(), o.open::get, false));
            }
        }
    }

    private static Origin listenerOrigin(String name, String uri, List<String> alpn, boolean http2) throws Exception {
        AtomicInteger open = new AtomicInteger();
        Listener l = IdleClosingListener.start(alpn == null ? null : IdleClosingListener.tls(cert, alpn), ORIGIN_IDLE,
                alpn == null || alpn.contains("h2"), IdleClosedOriginConnectionTest::handle, open);
        closing.add(l::close);
        return new Origin(name, uri.formatted(l.port()), open::get, http2);
    }

    /** Reads the body, counts the try of the id (the last path segment), answers "ok <id> <bytes>". */
    private static void handle(ServerExchange x) throws IOException {
        String path = x.request().path();
        String id = path.substring(path.lastIndexOf('/') + 1);
        byte[] body = x.requestBody().readAllBytes();
        record(id, body.length);
        x.respond(200, "ok " + id + " " + body.length);
    }

    private static void record(String id, int bytes) {
        tries.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
        bodyBytes.put(id, bytes);
    }

    @AfterAll
    static void stop() throws Exception {
        for (AutoCloseable c : closing) {
            c.close();
        }
    }

    @Test
    void aPooledConnectionTheOriginClosedWhileIdleNeverCostsTheNextRequestItsAnswer() throws Exception {
        List<Transport> transports = new ArrayList<>(List.of(Transport.JDK));
        if (Transport.epollUnavailableReason() == null) {
            transports.add(Transport.EPOLL);
        }
        List<String> providers = new ArrayList<>(List.of("jdk"));
        if (TlsProvider.CONSCRYPT.unavailableReason() == null) {
            providers.add("conscrypt");
        }
        // every combination's verdict, not only the first failure's
        List<String> failed = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger cases = new AtomicInteger();
        for (Transport t : transports) {
            for (String provider : providers) {
                // the origins side by side (each its own route, pool and connection; its cases one after the other):
                // each case waits out its origin's keep-alive timeout, and 84 of them in a row took 30 s of the suite
                try (Gateway gw = gateway(t, provider);
                        ExecutorService perOrigin = Executors.newVirtualThreadPerTaskExecutor()) {
                    for (int i = 0; i < origins.size(); i++) {
                        Origin o = origins.get(i);
                        if (provider.equals("conscrypt") && !o.uri.startsWith("https")) {
                            continue; // the provider is the TLS origins' business only
                        }
                        int route = i;
                        perOrigin.submit(() -> casesOfOrigin(gw, route, o, t, provider, cases, failed));
                    }
                }
            }
        }
        System.out.println("IdleClosedOriginConnectionTest: " + cases.get() + " cases, " + failed.size() + " failed");
        failed.forEach(f -> System.out.println("  FAILED " + f));
        assertThat(failed).as("the cases that failed, of " + cases).isEmpty();
    }

    /** One origin's cases (GET, POST fixed, POST chunked) one after the other, each verdict recorded. */
    private static void casesOfOrigin(Gateway gw, int route, Origin o, Transport t, String provider,
            AtomicInteger cases, List<String> failed) {
        for (String request : new String[] {"GET", "POST fixed", "POST chunked"}) {
            String what = t.name().toLowerCase(Locale.ROOT) + ", upstream TLS " + provider + ", " + o.name + ", "
                    + request;
            cases.incrementAndGet();
            try {
                oneCase(gw, route, o, request, what);
            } catch (Exception | AssertionError e) {
                String first = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
                failed.add(what + ": " + e.getClass().getSimpleName() + ": " + first);
            }
        }
    }

    private static Gateway gateway(Transport t, String provider) throws Exception {
        StringBuilder y = new StringBuilder("server:\n  address: 127.0.0.1\n  port: 0\n  transport: ")
                .append(t.name().toLowerCase(Locale.ROOT)).append("\nadmin:\n  port: 0\n")
                .append("upstream:\n  http2: true\n  connect-timeout: 10s\n  ssl:\n    trust-certificate: ")
                .append(pki.caCert()).append("\n    provider: ").append(provider).append("\nroutes:\n");
        for (int i = 0; i < origins.size(); i++) {
            y.append("  - id: o").append(i).append("\n    uri: ").append(origins.get(i).uri)
                    .append("\n    predicates: [ \"Path=/o").append(i).append("/**\" ]\n");
        }
        Gateway gw = Gateway.start(ConfigLoader.parse(y.toString(), "idle-close.yaml", Map.of()),
                Gateway.Observers.NONE);
        assertThat(gw.upstreamTransport()).isEqualTo(t);
        return gw;
    }

    private static void oneCase(Gateway gw, int route, Origin o, String request, String what) throws Exception {
        String warm = "w" + ids.incrementAndGet();
        HttpResponse<String> first = send(gw, route, "GET", warm);
        assertThat(first.statusCode()).as("%s: the first request (%s: %s)", what, first.statusCode(), first.body())
                .isEqualTo(200);
        awaitClosed(o, what);
        String id = "r" + ids.incrementAndGet();
        HttpResponse<String> next = send(gw, route, request, id);
        int length = request.equals("GET") ? 0 : BODY.length;
        assertThat(next.statusCode()).as("%s: the request after the origin closed the idle connection (%s)", what,
                next.body()).isEqualTo(200);
        assertThat(next.body()).as(what).isEqualTo("ok " + id + " " + length);
        assertThat(tries.get(id).get()).as("%s: tries the origin saw", what).isEqualTo(1);
        assertThat(bodyBytes.get(id)).as("%s: body bytes the origin read", what).isEqualTo(length);
    }

    private static HttpResponse<String> send(Gateway gw, int route, String request, String id) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gw.port() + "/o" + route
                + "/" + id)).timeout(Duration.ofSeconds(20));
        switch (request) {
            case "GET" -> b.GET();
            case "POST fixed" -> b.POST(HttpRequest.BodyPublishers.ofByteArray(BODY));
            default -> b.POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(BODY)));
        }
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Until the origin has closed every connection (its keep-alive timeout ran out). */
    private static void awaitClosed(Origin o, String what) {
        long end = System.nanoTime() + WAIT_NANOS;
        while (o.open.getAsInt() > 0) {
            assertThat(System.nanoTime() - end).as("%s: the origin closed its idle connection", what).isNegative();
            LockSupport.parkNanos(1_000_000);
        }
        // The request comes a moment after the close, as the everyday one comes long after the origin's timeout: the
        // close has crossed loopback and the epoll transport's poller has seen its edge. A close still on its way
        // as the request leaves is no lease check's to see.
        LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }

    /**
     * A bare HTTP/1.1 origin (plain or TLS) that answers each request and, once a connection sat idle for
     * {@link #ORIGIN_IDLE}, ends it its own way: the ways a TCP connection ends that the project's listener does not
     * use (an RST; under TLS a FIN without close_notify).
     */
    private static final class RawOrigin implements AutoCloseable {
        enum Close {
            FIN("FIN"), CLOSE_NOTIFY("close_notify, FIN"), RST("RST");

            final String label;

            Close(String label) {
                this.label = label;
            }
        }

        private final ServerSocket server = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
        private final SSLContext tls;
        private final Close close;
        final AtomicInteger open = new AtomicInteger();

        RawOrigin(SSLContext tls, Close close) throws IOException {
            this.tls = tls;
            this.close = close;
            Thread.ofVirtual().name("raw-origin-accept").start(this::accept);
        }

        int port() {
            return server.getLocalPort();
        }

        private void accept() {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    open.incrementAndGet();
                    Thread.ofVirtual().name("raw-origin").start(() -> serve(s));
                } catch (IOException e) {
                    return;
                }
            }
        }

        private void serve(Socket raw) {
            try {
                Socket s = raw;
                if (tls != null) {
                    SSLSocket t = (SSLSocket) tls.getSocketFactory().createSocket(raw, null, raw.getPort(), false);
                    t.setUseClientMode(false);
                    t.startHandshake();
                    s = t;
                }
                s.setSoTimeout((int) ORIGIN_IDLE.toMillis());
                InputStream in = s.getInputStream();
                OutputStream out = s.getOutputStream();
                while (true) {
                    String head;
                    try {
                        head = readHead(in);
                    } catch (SocketTimeoutException idle) {
                        break;
                    }
                    if (head == null) {
                        break;
                    }
                    s.setSoTimeout(10_000);
                    String path = head.substring(head.indexOf(' ') + 1, head.indexOf(' ', head.indexOf(' ') + 1));
                    String id = path.substring(path.lastIndexOf('/') + 1);
                    String lower = head.toLowerCase(Locale.ROOT);
                    int length = 0;
                    if (lower.contains("transfer-encoding: chunked")) {
                        length = readChunked(in);
                    } else if (lower.contains("content-length:")) {
                        int at = lower.indexOf("content-length:") + "content-length:".length();
                        length = Integer.parseInt(lower.substring(at, lower.indexOf('\r', at)).trim());
                        in.readNBytes(length);
                    }
                    record(id, length);
                    byte[] answer = ("ok " + id + " " + length).getBytes(StandardCharsets.US_ASCII);
                    out.write(("HTTP/1.1 200 OK\r\ncontent-length: " + answer.length + "\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    out.write(answer);
                    out.flush();
                    s.setSoTimeout((int) ORIGIN_IDLE.toMillis());
                }
                switch (close) {
                    case FIN -> raw.close(); // under TLS: no close_notify
                    case CLOSE_NOTIFY -> s.close();
                    case RST -> {
                        raw.setSoLinger(true, 0);
                        raw.close();
                    }
                }
            } catch (IOException e) {
                try {
                    raw.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            } finally {
                open.decrementAndGet();
            }
        }

        /** The head up to its blank line, or null at the end of the stream before any byte. */
        private static String readHead(InputStream in) throws IOException {
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            int matched = 0;
            while (matched < 4) {
                int b = in.read();
                if (b < 0) {
                    return null;
                }
                head.write(b);
                matched = (b == '\r' && (matched == 0 || matched == 2)) || (b == '\n' && (matched == 1
                        || matched == 3)) ? matched + 1 : (b == '\r' ? 1 : 0);
            }
            return head.toString(StandardCharsets.US_ASCII);
        }

        private static String readLine(InputStream in) throws IOException {
            StringBuilder line = new StringBuilder();
            for (int b; (b = in.read()) != '\n'; ) {
                if (b < 0) {
                    throw new IOException("the body ended early");
                }
                if (b != '\r') {
                    line.append((char) b);
                }
            }
            return line.toString();
        }

        private static int readChunked(InputStream in) throws IOException {
            int total = 0;
            while (true) {
                String size = readLine(in);
                int n = Integer.parseInt(size.split(";")[0].trim(), 16);
                if (n == 0) {
                    while (!readLine(in).isEmpty()) {
                        // trailers
                    }
                    return total;
                }
                in.readNBytes(n);
                readLine(in);
                total += n;
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
