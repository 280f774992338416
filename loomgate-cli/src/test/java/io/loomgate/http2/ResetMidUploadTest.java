package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import io.loomgate.cli.ServedGateway;
import io.loomgate.observe.AccessLog;
import io.loomgate.server.Transport;
import io.loomgate.testkit.EcsSchema;
import io.loomgate.testkit.PrometheusText;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestPki;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;

/**
 * Session 61: an origin that fails while a client's upload is still arriving (the head and 3,000 of 5,000 body bytes
 * sent, then the client stalls or trickles): its connection reset (SO_LINGER 0) for an HTTP/1.1 and an h2c origin, and
 * for h2c also RST_STREAM INTERNAL_ERROR, GOAWAY INTERNAL_ERROR naming the stream, and run 84's refusal followed at
 * once by a reset (a 502 {@code connect_refused} or {@code upstream_reset}, as the gateway reads it). The origin may
 * have processed the request, and the body is neither whole nor kept, so it is not sent again: the client gets a 502
 * {@code upstream_reset} as soon as the origin is gone, well before the read timeout (5 s), not a 408 at it (stop 60's
 * run 84); one access line, counted; the rest of its body is not read for the origin: an HTTP/1.1 connection is closed
 * after the answer ({@code Connection: close}), an HTTP/2 stream ends and is reset (NO_ERROR or CANCEL, RFC 9113 §8.1,
 * after the early answer's bounded discard) and the same connection serves its next stream. A {@code Retry} filter
 * changes nothing: its default methods leave a POST alone, and one listing POST cannot send again a body whose upload
 * is still reading the stalled client (docs/configuration.md, "Retry").
 */
class ResetMidUploadTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    /** The body the client declares, and the part sent before the origin fails. */
    private static final int BODY = 5_000;
    private static final int FIRST = 3_000;
    /** The listener's read timeout: the 408 that run 84 saw came at it. */
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(5);
    /**
     * The listener's linger-timeout, which also bounds an HTTP/2 stream's discard after its early answer, so it is
     * when the RST_STREAM comes: short, since every HTTP/2 cell waits for it (1 s here until session 61's second
     * task: a third of the class's time).
     */
    private static final Duration LINGER = Duration.ofMillis(300);
    /** The bound on the 502 after the origin failed: well under the read timeout. */
    private static final Duration PROMPT = Duration.ofMillis(2_500);
    /** A trickling client's pace: 10 bytes each 100 ms, so its body would take 20 s to end. */
    private static final int TRICKLE_BYTES = 10;
    private static final Duration TRICKLE_EVERY = Duration.ofMillis(100);

    /** How the origin fails mid-upload. */
    enum OriginEnd {
        H1_RESET(null), H2C_RESET(ScriptedH2cOrigin.Refusal.CONNECTION_RESET),
        H2C_STREAM_ERROR(ScriptedH2cOrigin.Refusal.STREAM_ERROR),
        H2C_GOAWAY(ScriptedH2cOrigin.Refusal.GOAWAY_PROCESSED),
        /**
         * Run 84's origin: a refusal (GOAWAY below the stream, its listener closed) and at once a reset that may
         * discard it: 502 either way, {@code connect_refused} (the GOAWAY read, the retry's dial refused) or
         * {@code upstream_reset} (the reset read first).
         */
        H2C_GOAWAY_RESET(ScriptedH2cOrigin.Refusal.GOAWAY_THEN_RESET);

        final ScriptedH2cOrigin.Refusal h2;

        OriginEnd(ScriptedH2cOrigin.Refusal h2) {
            this.h2 = h2;
        }
    }

    /** The client's protocol and listener: HTTP/1.1 plain or over TLS, h2c, h2 over TLS on each provider. */
    enum ClientKind {
        H1(false, null), H1_TLS(false, "jdk"), H2C(true, null), H2_JDK(true, "jdk"), H2_CONSCRYPT(true, "conscrypt");

        final boolean h2;
        final String provider;

        ClientKind(boolean h2, String provider) {
            this.h2 = h2;
            this.provider = provider;
        }
    }

    /** What the client does after its first 3,000 bytes: sends nothing more, or 10 bytes each 100 ms. */
    enum Pace { STALLED, TRICKLING }

    /** The route's {@code Retry}: none, the default one (GET only), one listing POST. */
    enum RetryFilter {
        NONE(""),
        GET_ONLY("""
                    filters:
                      - name: Retry
                        args:
                          retries: 1
                          exceptions: IOException
                """),
        POST("""
                    filters:
                      - name: Retry
                        args:
                          retries: 1
                          methods: GET,POST
                          exceptions: IOException
                          max-replay-size: 64KB
                """);

        final String yaml;

        RetryFilter(String yaml) {
            this.yaml = yaml;
        }
    }

    private static TestPki pki;
    private static TestPki.Issued cert;

    @BeforeAll
    static void pki() throws IOException {
        pki = TestPki.create("reset mid-upload CA");
        cert = pki.issue("gateway", "localhost", "localhost");
    }

    /**
     * Every cell's access line, checked against the ECS schema once for the class ({@link #linesAreEcs}): each check
     * is a python3 process (two, with the look for jsonschema), 1.3-2.3 s of a cell's 2.8 s under load before
     * session 61's second task.
     */
    private static final List<String> ACCESS_LINES = new CopyOnWriteArrayList<>();

    @AfterAll
    static void noPki() {
        pki = null;
    }

    @AfterAll
    static void linesAreEcs() throws Exception {
        if (!ACCESS_LINES.isEmpty()) {
            EcsSchema.assertValid(ACCESS_LINES);
        }
    }

    /**
     * Every origin end × every client × both paces without a retry (the transport alternating, so each origin end and
     * client meets both; run 84's refusal-then-reset with a stalled client only, its shape); then the two {@code Retry}
     * filters over HTTP/1.1 and h2c clients (one listing POST with a stalled client only: a trickling one is retried
     * when its next bytes end the upload's read within the stop's 100 ms, a race, see the journal
     * 2026-12-02-s61-reset).
     */
    static Stream<Arguments> cells() {
        List<Arguments> out = new ArrayList<>();
        int i = 0;
        for (OriginEnd o : OriginEnd.values()) {
            for (ClientKind c : ClientKind.values()) {
                for (Pace p : o == OriginEnd.H2C_GOAWAY_RESET ? List.of(Pace.STALLED) : List.of(Pace.values())) {
                    out.add(Arguments.of(o, c, p, i++ % 2 == 0 ? Transport.JDK : Transport.EPOLL, RetryFilter.NONE));
                }
            }
        }
        for (OriginEnd o : List.of(OriginEnd.H1_RESET, OriginEnd.H2C_RESET)) {
            for (ClientKind c : List.of(ClientKind.H1, ClientKind.H2C)) {
                for (Pace p : Pace.values()) {
                    out.add(Arguments.of(o, c, p, i++ % 2 == 0 ? Transport.JDK : Transport.EPOLL,
                            RetryFilter.GET_ONLY));
                }
                out.add(Arguments.of(o, c, Pace.STALLED, i++ % 2 == 0 ? Transport.JDK : Transport.EPOLL,
                        RetryFilter.POST));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1} {2} {3} retry={4}")
    @MethodSource("cells")
    void anOriginThatFailsMidUploadIsA502AtOnce(OriginEnd end, ClientKind client, Pace pace, Transport t,
                                                RetryFilter retry) throws Exception {
        if (t == Transport.EPOLL) {
            Assumptions.assumeTrue(Transport.epollUnavailableReason() == null, "epoll: "
                    + Transport.epollUnavailableReason());
        }
        List<String> lines = new CopyOnWriteArrayList<>();
        AppenderBase<ILoggingEvent> capture = RefusedStreamAfterBodyTest.capture(lines);
        Logger accessLog = (Logger) LoggerFactory.getLogger(AccessLog.LOGGER);
        accessLog.addAppender(capture);
        String id = (end + "-" + client + "-" + pace + "-" + t + "-" + retry).toLowerCase(Locale.ROOT);
        String path = "/main/reset/" + id;
        byte[] sent = RefusedStreamAfterBodyTest.body(BODY);
        FailingOrigin origin = new FailingOrigin(end, FIRST);
        try (origin; TestOrigin next = new TestOrigin();
             ServedGateway gw = RunningGateway.servedWithAdmin(yaml(t, client, retry), "reset-mid-upload.yaml",
                     Map.of("ORIGIN", origin.uri(), "NEXT", next.uri()))) {
            next.enqueue(TestOrigin.Reply.ok("next"));
            if (client.h2) {
                h2Exchange(gw, client, pace, path, sent, origin);
            } else {
                h1Exchange(gw, client, pace, path, sent, origin);
            }
            assertLoggedOnceAndCounted(lines, path, gw, end);
            assertThat(origin.requests()).as("requests the origin got: no retry").isEqualTo(1);
        } finally {
            accessLog.detachAppender(capture);
        }
    }

    private static String yaml(Transport t, ClientKind client, RetryFilter retry) {
        String ssl = client.provider == null ? "" : "  ssl:\n    provider: " + client.provider + "\n    certificate: "
                + cert.cert() + "\n    certificate-private-key: " + cert.key() + "\n";
        return """
                server:
                  address: 127.0.0.1
                  port: 0
                  transport: %s
                  read-timeout: %ds
                  linger-timeout: %dms
                  http2:
                    enabled: true
                %sadmin:
                  port: ${ADMIN_PORT}
                access-log:
                  enabled: true
                  format: json
                routes:
                  - id: next
                    uri: ${NEXT}
                    predicates: [ "Path=/next/**" ]
                  - id: main
                    uri: ${ORIGIN}
                    predicates: [ "Path=/**" ]
                """.formatted(t.name().toLowerCase(Locale.ROOT), READ_TIMEOUT.toSeconds(), LINGER.toMillis(), ssl) + retry.yaml;
    }

    /**
     * HTTP/1.1: the head and the first part, then the client stalls or trickles; the 502 must come promptly after
     * the origin failed, and close the connection (the body's rest unread).
     */
    private static void h1Exchange(ServedGateway gw, ClientKind client, Pace pace, String path, byte[] sent,
                                   FailingOrigin origin) throws Exception {
        try (Socket s = connect(gw.port(), client)) {
            s.setSoTimeout(20_000);
            OutputStream out = s.getOutputStream();
            out.write(("POST " + path + " HTTP/1.1\r\nHost: h\r\nContent-Length: " + sent.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(sent, 0, FIRST);
            out.flush();
            Trickle trickle = pace == Pace.TRICKLING ? Trickle.start(sent, (b, off, len) -> {
                out.write(b, off, len);
                out.flush();
            }) : null;
            try {
                long failedAt = origin.awaitFailure();
                InputStream in = s.getInputStream();
                String answer = RefusedStreamAfterBodyTest.readAnswer(in);
                Duration took = Duration.ofNanos(System.nanoTime() - failedAt);
                assertThat(answer).as("the client's answer").startsWith("HTTP/1.1 502 ");
                assertThat(took).as("answered after the origin failed, not at the read timeout").isLessThan(PROMPT);
                assertThat(answer).containsIgnoringCase("\r\nConnection: close\r\n");
                if (trickle != null) {
                    trickle.stop();
                }
                assertThat(in.read()).as("the connection closed after the answer: the body's rest unread")
                        .isEqualTo(-1);
            } finally {
                if (trickle != null) {
                    trickle.stop();
                }
            }
        }
    }

    /**
     * HTTP/2: the same on stream 1; a 502 must end the stream and reset it (NO_ERROR or CANCEL) so the client sends
     * no more, and the connection must then serve a GET on stream 3.
     */
    private static void h2Exchange(ServedGateway gw, ClientKind client, Pace pace, String path, byte[] sent,
                                   FailingOrigin origin) throws Exception {
        try (RawH2Client c = new RawH2Client(connect(gw.port(), client))) {
            c.headers(1, RawH2Client.request("POST", path, "content-length", Integer.toString(sent.length)), false);
            c.data(1, Arrays.copyOf(sent, FIRST), false);
            Trickle trickle = pace == Pace.TRICKLING ? Trickle.start(sent, (b, off, len) ->
                    c.data(1, Arrays.copyOfRange(b, off, off + len), off + len == b.length)) : null;
            long failedAt;
            try {
                failedAt = origin.awaitFailure();
                RawH2Client.Frame head = c.await(f -> f.is(Frames.HEADERS, 1));
                Duration took = Duration.ofNanos(System.nanoTime() - failedAt);
                assertThat(head).as("an answer on stream 1: %s", c.endedBy()).isNotNull();
                assertThat(c.fields(head)).containsEntry(":status", "502");
                assertThat(took).as("answered after the origin failed, not at the read timeout").isLessThan(PROMPT);
                RawH2Client.Frame endOfAnswer = head.endStream() ? head : c.await(f -> f.stream() == 1
                        && f.endStream() && (f.type() == Frames.DATA || f.type() == Frames.HEADERS));
                assertThat(endOfAnswer).as("the answer ended").isNotNull();
            } finally {
                if (trickle != null) {
                    trickle.stop();
                }
            }
            // The next stream is served while stream 1's rest may still be taken and thrown away (an early answer's
            // discard: curl 7.88 drops a complete answer whose stream is reset while it uploads, Http2Stream)
            c.get(3, "/next/x");
            RawH2Client.Frame nextHead = null;
            RawH2Client.Frame rst = null;
            while (nextHead == null || rst == null) {
                RawH2Client.Frame f = c.read();
                if (f == null) {
                    break;
                }
                if (f.is(Frames.HEADERS, 3)) {
                    nextHead = f;
                } else if (f.is(Frames.RST_STREAM, 1)) {
                    rst = f;
                }
            }
            assertThat(nextHead).as("an answer on the next stream: %s", c.endedBy()).isNotNull();
            assertThat(c.fields(nextHead)).as("the next stream on the same connection").containsEntry(":status",
                    "200");
            // then RST_STREAM NO_ERROR (RFC 9113 §8.1) once the discard's bound passed (the linger-timeout here)
            assertThat(rst).as("the client told to stop sending: %s", c.endedBy()).isNotNull();
            assertThat(rst.errorCode()).as("RST_STREAM's code").isIn(Frames.NO_ERROR, Frames.CANCEL);
            assertThat(Duration.ofNanos(System.nanoTime() - failedAt)).as("the reset within the discard's bound")
                    .isLessThan(PROMPT.plusSeconds(1));
        }
    }

    /** Plain, or TLS with ALPN offering h2 or http/1.1 as the client kind speaks. */
    private static Socket connect(int port, ClientKind client) throws IOException {
        if (client.provider == null) {
            return new Socket("127.0.0.1", port);
        }
        javax.net.ssl.SSLSocket s = (javax.net.ssl.SSLSocket) pki.clientContext(null).getSocketFactory()
                .createSocket(java.net.InetAddress.getLoopbackAddress(), port);
        javax.net.ssl.SSLParameters p = s.getSSLParameters();
        String protocol = client.h2 ? "h2" : "http/1.1";
        p.setApplicationProtocols(new String[] {protocol});
        s.setSSLParameters(p);
        s.startHandshake();
        assertThat(s.getApplicationProtocol()).as("ALPN").isEqualTo(protocol);
        return s;
    }

    /** One access line for the exchange, 502 {@code upstream_reset} (see {@link OriginEnd}), and the metrics. */
    private static void assertLoggedOnceAndCounted(List<String> lines, String path, ServedGateway gw, OriginEnd end)
            throws Exception {
        long logged = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (lines.stream().noneMatch(l -> l.contains(path)) && System.nanoTime() < logged) {
            Thread.sleep(10); // the line is written after the answer: polled, with a deadline
        }
        List<String> ours = lines.stream().filter(l -> l.contains(path)).toList();
        assertThat(ours).as("the access log's lines").hasSize(1);
        String line = ours.getFirst();
        assertThat(line).as("the access line's status").contains("\"http.response.status_code\":502,");
        String kind = end == OriginEnd.H2C_GOAWAY_RESET && line.contains("\"loomgate.failure\":\"connect_refused\"")
                ? "connect_refused" : "upstream_reset";
        assertThat(line).contains("\"loomgate.failure\":\"" + kind + "\"");
        ACCESS_LINES.add(line); // valid ECS: checked with the other cells' at the end (linesAreEcs)
        PrometheusText metrics = new PrometheusText(CLIENT.send(HttpRequest.newBuilder(URI.create(
                "http://127.0.0.1:" + gw.adminPort() + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).body());
        assertThat(metrics.value("loomgate_requests_total", "route=main", "method=POST", "status=5xx"))
                .as("the POST counted").isEqualTo(1.0);
        assertThat(metrics.value("loomgate_exchange_failures_total", "route=main", "kind=" + kind))
                .as("the failure counted").isEqualTo(1.0);
    }

    /** A write of part of the body, on the trickle's thread. */
    @FunctionalInterface
    private interface PartWriter {
        void write(byte[] body, int off, int len) throws IOException;
    }

    /** The body's rest after {@link #FIRST}, {@link #TRICKLE_BYTES} at a time, until stopped or a write fails. */
    private static final class Trickle {
        private final Thread thread;
        private volatile boolean stopped;

        private Trickle(byte[] body, PartWriter to) {
            thread = Thread.ofVirtual().name("reset-trickle").start(() -> {
                try {
                    for (int at = FIRST; at < body.length && !stopped; at += TRICKLE_BYTES) {
                        Thread.sleep(TRICKLE_EVERY); // the client's pace, not a wait for readiness
                        if (!stopped) {
                            to.write(body, at, Math.min(TRICKLE_BYTES, body.length - at));
                        }
                    }
                } catch (IOException | InterruptedException e) {
                    // the gateway closed the connection or reset the stream: the client stops
                }
            });
        }

        static Trickle start(byte[] body, PartWriter to) {
            return new Trickle(body, to);
        }

        /** Stops it and waits for its last write, so the test's own writes do not interleave with it. */
        void stop() throws InterruptedException {
            stopped = true;
            thread.join(Duration.ofSeconds(5));
        }
    }

    /**
     * The origin of a cell: {@link HostileH1Origin} reading the head and {@link #FIRST} body bytes and then resetting
     * its connection (the first request only), or {@link ScriptedH2cOrigin} failing the stream its way at as many.
     */
    private static final class FailingOrigin implements AutoCloseable {
        private final HostileH1Origin h1;
        private final ScriptedH2cOrigin h2;
        private final AtomicLong failedAt = new AtomicLong();

        FailingOrigin(OriginEnd end, int at) throws IOException {
            if (end.h2 == null) {
                h2 = null;
                h1 = new HostileH1Origin(null).on("reset", false, (r, s, in, out) -> {
                    in.readNBytes(at);
                    HostileH1Origin.reset(s);
                    failedAt.set(System.nanoTime());
                    return false;
                });
            } else {
                h1 = null;
                h2 = RefusedStreamAfterBodyTest.refusingAt(end.h2, at);
                h2.goneAfterRefusal = end == OriginEnd.H2C_GOAWAY_RESET;
            }
        }

        String uri() {
            return h1 != null ? h1.uri() : h2.uri();
        }

        /** When the origin failed (System.nanoTime()), waited for with a deadline. */
        long awaitFailure() throws InterruptedException {
            long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (true) {
                if (h2 != null && !h2.connections().isEmpty() && !h2.connections().getFirst().refused.isEmpty()
                        && failedAt.get() == 0) {
                    failedAt.compareAndSet(0, System.nanoTime());
                }
                long at = failedAt.get();
                if (at != 0) {
                    return at;
                }
                assertThat(System.nanoTime()).as("the origin failed the upload in time").isLessThan(end);
                Thread.sleep(5);
            }
        }

        /** Requests the origin got (a retry would be a second): every one here has a body. */
        int requests() {
            return h1 != null ? h1.received("reset").size()
                    : h2.connections().stream().mapToInt(c -> c.uploads.size()).sum();
        }

        @Override
        public void close() throws IOException {
            if (h1 != null) {
                h1.close();
            } else {
                h2.close();
            }
        }
    }
}
