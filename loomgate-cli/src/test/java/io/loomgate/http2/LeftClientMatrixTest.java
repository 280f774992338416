package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import io.loomgate.cli.ServedGateway;
import io.loomgate.observe.AccessLog;
import io.loomgate.server.Transport;
import io.loomgate.testkit.PrometheusText;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestPki;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
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
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;

/**
 * Session 61: an HTTP/1.1 client that closes its connection while its exchange waits for a slow origin. Once the
 * request was read nothing read the client's socket, so the gateway noticed only when it wrote the answer: the origin
 * call ran to its end (5 s here), holding an origin connection and the origin's work, for nobody. nginx notices at
 * once ({@code ngx_http_upstream_check_broken_connection}), as HTTP/2's reader does (RST_STREAM). Now the origin's
 * request is aborted soon after (the origin sees its connection closed), and the exchange has one access line, 499
 * {@code client_aborted}, counted. And what the watcher reads must not be lost or cost a client that stays: a
 * request pipelined while the first waits is served after it, and a keep-alive client that waits quietly is served
 * its next request.
 *
 * <p>The matrix: listener plain, TLS on JSSE, TLS on Conscrypt (ALPN http/1.1) × the listener's transport, the JDK's
 * sockets or epoll × a GET that leaves, an upload (sent whole) that leaves, a client that stays quiet, a client that
 * pipelines its next request while the first waits.
 */
class LeftClientMatrixTest {
    /** The origin's delay for a client that leaves: the gateway must not wait for it. */
    private static final Duration SLOW = Duration.ofSeconds(5);
    /** The origin's delay for a client that stays: long enough to be watched (from 1 s), short for the test. */
    private static final Duration STAY = Duration.ofMillis(2500);
    /** The client leaves this long after its request was sent whole. */
    private static final Duration LEAVE_AFTER = Duration.ofMillis(500);
    /** From the client's close to the origin's connection closed: ~1.5 s in the brief, some slack for a loaded box. */
    private static final Duration ABORTED_WITHIN = Duration.ofMillis(2000);
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    enum Listener { PLAIN, JSSE, CONSCRYPT }

    enum Shape { GET_LEAVES, UPLOAD_LEAVES, STAYS_QUIET, PIPELINES_AND_STAYS }

    private static TestPki pki;
    private static TestPki.Issued cert;

    @BeforeAll
    static void certificates() throws Exception {
        pki = TestPki.create("left-client CA");
        cert = pki.issue("gateway", "localhost", "localhost");
    }

    static Stream<Arguments> cells() {
        List<Arguments> out = new ArrayList<>();
        for (Listener l : Listener.values()) {
            for (Transport t : List.of(Transport.JDK, Transport.EPOLL)) {
                for (Shape s : Shape.values()) {
                    out.add(Arguments.of(l, t, s));
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("cells")
    void aClientThatLeavesWhileItsOriginIsSlowIsNoticed(Listener l, Transport t, Shape shape) throws Exception {
        if (t == Transport.EPOLL) {
            Assumptions.assumeTrue(Transport.epollUnavailableReason() == null, "epoll: "
                    + Transport.epollUnavailableReason());
        }
        List<String> lines = new CopyOnWriteArrayList<>();
        AppenderBase<ILoggingEvent> capture = new AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent e) {
                lines.add(e.getFormattedMessage());
            }
        };
        capture.start();
        Logger accessLog = (Logger) LoggerFactory.getLogger(AccessLog.LOGGER);
        accessLog.addAppender(capture);
        try (SlowOrigin origin = new SlowOrigin();
             ServedGateway gw = RunningGateway.servedWithAdmin(yaml(l, t), "left-client.yaml",
                     Map.of("ORIGIN", "http://127.0.0.1:" + origin.port()));
             Socket c = connect(l, gw.port())) {
            OutputStream out = c.getOutputStream();
            InputStream in = c.getInputStream();
            switch (shape) {
                case GET_LEAVES, UPLOAD_LEAVES -> {
                    String path = shape == Shape.GET_LEAVES ? "/slow/get" : "/slow/upload";
                    byte[] body = new byte[shape == Shape.GET_LEAVES ? 0 : 10_000];
                    out.write(request(shape == Shape.GET_LEAVES ? "GET" : "POST", path, body));
                    out.flush();
                    OriginRequest r = origin.requests.poll(10, TimeUnit.SECONDS);
                    assertThat(r).as("the origin got the request").isNotNull();
                    assertThat(r.bodyBytes).as("the body the origin got").isEqualTo(body.length);
                    Thread.sleep(LEAVE_AFTER.toMillis()); // the scenario's pause, not a wait for readiness
                    long closed = System.nanoTime();
                    c.close();
                    Long abortedNanos = awaitOrNull(r.closedByGateway, ABORTED_WITHIN.toMillis() + 100);
                    assertThat(abortedNanos).as("the origin's connection closed within %s of the client's close",
                            ABORTED_WITHIN).isNotNull();
                    System.out.printf("%s %s %s: origin aborted %d ms after the client's close%n", l, t, shape,
                            TimeUnit.NANOSECONDS.toMillis(abortedNanos - closed));
                    assertThat(abortedNanos - closed).isLessThanOrEqualTo(ABORTED_WITHIN.toNanos());
                    String line = oneLine(lines, path);
                    assertThat(line).contains("\"http.response.status_code\":499,")
                            .contains("\"loomgate.failure\":\"client_aborted\"");
                    assertThat(failures(gw, "client_aborted")).as("counted").isEqualTo(1.0);
                }
                case STAYS_QUIET -> {
                    out.write(request("GET", "/slow/stay", new byte[0]));
                    out.flush();
                    assertThat(readResponse(in)).isEqualTo("slow:/slow/stay");
                    out.write(request("GET", "/fast/next", new byte[0]));
                    out.flush();
                    assertThat(readResponse(in)).as("the next request on the same connection")
                            .isEqualTo("fast:/fast/next");
                    assertStayed(gw, origin, lines, "/slow/stay", "/fast/next");
                }
                case PIPELINES_AND_STAYS -> {
                    out.write(request("GET", "/slow/stay", new byte[0]));
                    out.flush();
                    assertThat(origin.requests.poll(10, TimeUnit.SECONDS)).isNotNull();
                    // sent while the first waits, once it is watched (from 1 s): the watcher reads these bytes
                    Thread.sleep(1700);
                    out.write(request("POST", "/fast/pipelined", "0123456789".getBytes(StandardCharsets.US_ASCII)));
                    out.flush();
                    assertThat(readResponse(in)).isEqualTo("slow:/slow/stay");
                    assertThat(readResponse(in)).as("the pipelined request, after the first")
                            .isEqualTo("fast:/fast/pipelined");
                    out.write(request("GET", "/fast/third", new byte[0]));
                    out.flush();
                    assertThat(readResponse(in)).isEqualTo("fast:/fast/third");
                    assertStayed(gw, origin, lines, "/slow/stay", "/fast/pipelined", "/fast/third");
                }
                default -> throw new IllegalStateException();
            }
        } finally {
            accessLog.detachAppender(capture);
        }
    }

    private static void assertStayed(ServedGateway gw, SlowOrigin origin, List<String> lines, String... paths)
            throws Exception {
        for (String p : paths) {
            assertThat(oneLine(lines, p)).contains("\"http.response.status_code\":200,");
        }
        assertThat(failures(gw, "client_aborted")).as("no client counted gone").isZero();
        assertThat(origin.closedEarly).as("origin requests aborted").isEmpty();
    }

    private static String yaml(Listener l, Transport t) {
        StringBuilder y = new StringBuilder("""
                server:
                  address: 127.0.0.1
                  port: 0
                  transport: %s
                """.formatted(t.name().toLowerCase(Locale.ROOT)));
        if (l != Listener.PLAIN) {
            y.append("  ssl:\n    provider: ").append(l == Listener.JSSE ? "jdk" : "conscrypt")
                    .append("\n    certificate: ").append(cert.cert())
                    .append("\n    certificate-private-key: ").append(cert.key()).append('\n');
        }
        y.append("""
                admin:
                  port: ${ADMIN_PORT}
                access-log:
                  enabled: true
                  format: json
                routes:
                  - id: main
                    uri: ${ORIGIN}
                    predicates: [ "Path=/**" ]
                """);
        return y.toString();
    }

    private static Socket connect(Listener l, int port) throws IOException {
        if (l == Listener.PLAIN) {
            Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
            s.setSoTimeout(15_000);
            return s;
        }
        SSLSocket s = (SSLSocket) pki.clientContext(null).getSocketFactory()
                .createSocket(InetAddress.getLoopbackAddress(), port);
        SSLParameters p = s.getSSLParameters();
        p.setServerNames(List.of(new SNIHostName("localhost")));
        p.setApplicationProtocols(new String[] {"http/1.1"});
        s.setSSLParameters(p);
        s.setSoTimeout(15_000);
        s.startHandshake();
        return s;
    }

    private static byte[] request(String method, String path, byte[] body) {
        String head = method + " " + path + " HTTP/1.1\r\nHost: left.example\r\n"
                + (body.length > 0 || method.equals("POST") ? "Content-Length: " + body.length + "\r\n" : "") + "\r\n";
        byte[] h = head.getBytes(StandardCharsets.US_ASCII);
        byte[] all = new byte[h.length + body.length];
        System.arraycopy(h, 0, all, 0, h.length);
        System.arraycopy(body, 0, all, h.length, body.length);
        return all;
    }

    /** One response with a Content-Length body; returns the body (the status must be 200). */
    private static String readResponse(InputStream in) throws IOException {
        String head = readHead(in);
        assertThat(head).startsWith("HTTP/1.1 200");
        int length = contentLength(head);
        return new String(in.readNBytes(length), StandardCharsets.US_ASCII);
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int x = in.read();
            if (x < 0) {
                throw new IOException("closed after " + b);
            }
            b.write(x);
            matched = x == "\r\n\r\n".charAt(matched) ? matched + 1 : x == '\r' ? 1 : 0;
        }
        return b.toString(StandardCharsets.US_ASCII);
    }

    private static int contentLength(String head) {
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                return Integer.parseInt(line.substring(15).trim());
            }
        }
        return 0;
    }

    /** The one access line for this path (polled with a deadline: it is written after the exchange ends). */
    private static String oneLine(List<String> lines, String path) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (lines.stream().noneMatch(x -> x.contains("\"" + path + "\"")) && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        List<String> ours = lines.stream().filter(x -> x.contains("\"" + path + "\"")).toList();
        assertThat(ours).as("the access lines of %s", path).hasSize(1);
        return ours.getFirst();
    }

    private static double failures(ServedGateway gw, String kind) throws Exception {
        String text = CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gw.adminPort()
                + "/metrics")).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body();
        if (!text.contains("kind=\"" + kind + "\"")) {
            return 0; // the counters are made on first use
        }
        return new PrometheusText(text).value("loomgate_exchange_failures_total", "route=main", "kind=" + kind);
    }

    private static Long awaitOrNull(CompletableFuture<Long> f, long millis) throws Exception {
        try {
            return f.get(millis, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            return null;
        }
    }

    /** A request as the origin saw it; {@link #closedByGateway} completes (nanoTime) if its connection closed first. */
    record OriginRequest(String path, int bodyBytes, CompletableFuture<Long> closedByGateway) {
    }

    /**
     * An HTTP/1.1 origin on a real socket: {@code /slow/...} answers after {@link #SLOW} ({@code /slow/stay} after
     * {@link #STAY}), reading its connection meanwhile to see whether the gateway closes it; {@code /fast/...} at once.
     */
    static final class SlowOrigin implements AutoCloseable {
        final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final LinkedBlockingQueue<OriginRequest> requests = new LinkedBlockingQueue<>();
        final List<String> closedEarly = new CopyOnWriteArrayList<>();
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();

        SlowOrigin() throws IOException {
            Thread.ofVirtual().start(this::accept);
        }

        int port() {
            return server.getLocalPort();
        }

        private void accept() {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    sockets.add(s);
                    Thread.ofVirtual().start(() -> serve(s));
                } catch (IOException e) {
                    return;
                }
            }
        }

        private void serve(Socket s) {
            try (s) {
                InputStream in = s.getInputStream();
                OutputStream out = s.getOutputStream();
                while (true) {
                    s.setSoTimeout(30_000);
                    String head;
                    try {
                        head = readHead(in);
                    } catch (IOException e) {
                        return; // the gateway closed an idle connection
                    }
                    String path = head.substring(head.indexOf(' ') + 1, head.indexOf(' ', head.indexOf(' ') + 1));
                    int length = contentLength(head);
                    in.readNBytes(length);
                    OriginRequest r = new OriginRequest(path, length, new CompletableFuture<>());
                    requests.add(r);
                    String body;
                    if (path.startsWith("/slow/")) {
                        long end = System.nanoTime() + (path.equals("/slow/stay") ? STAY : SLOW).toNanos();
                        if (closedBefore(s, in, end)) {
                            r.closedByGateway.complete(System.nanoTime());
                            closedEarly.add(path);
                            return;
                        }
                        body = "slow:" + path;
                    } else {
                        body = "fast:" + path;
                    }
                    out.write(("HTTP/1.1 200 OK\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)
                            .getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                }
            } catch (IOException e) {
                // the gateway went away mid-answer
            }
        }

        /** Waits until {@code end} reading the connection: true when the gateway closed it (or reset it) first. */
        private static boolean closedBefore(Socket s, InputStream in, long end) throws IOException {
            while (true) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                s.setSoTimeout((int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                try {
                    if (in.read() < 0) {
                        return true;
                    }
                } catch (SocketTimeoutException e) {
                    return false;
                } catch (IOException e) {
                    return true;
                }
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (Socket s : sockets) {
                s.close();
            }
        }
    }
}
