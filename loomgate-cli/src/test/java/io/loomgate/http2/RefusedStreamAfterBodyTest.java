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
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Random;
import java.util.function.BooleanSupplier;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;

/**
 * A POST whose whole body had streamed to an HTTP/2 origin that then refused the stream (a GOAWAY whose last stream
 * is below it, then its close, as an origin's idle close crossing the request; or RST_STREAM REFUSED_STREAM), on a
 * route without a {@code Retry} filter: the origin processed nothing (RFC 9113 §8.7), so the gateway sends the
 * request again on a fresh stream with the body it kept, and the client gets the origin's 200. Until session 56 this
 * was a 502: the body was gone from the client's input and nothing kept it (journal 2026-12-01-s55-h2goaway,
 * interleaving 1). A body larger than the copy's bound (the default initial stream window), refused after it all
 * streamed, is still a 502, with the access log's failure kind {@code upstream_reset}.
 */
class RefusedStreamAfterBodyTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (Transport t : List.of(Transport.JDK, Transport.EPOLL)) {
            for (ScriptedH2cOrigin.Refusal r : List.of(ScriptedH2cOrigin.Refusal.GOAWAY_BELOW,
                    ScriptedH2cOrigin.Refusal.REFUSED_STREAM)) {
                out.add(Arguments.of(t, r));
            }
        }
        return out.stream();
    }

    private static String yaml(Transport t) {
        return """
                server:
                  address: 127.0.0.1
                  port: 0
                  transport: %s
                admin:
                  port: ${ADMIN_PORT}
                access-log:
                  enabled: true
                  format: json
                routes:
                  - id: main
                    uri: ${ORIGIN}
                    predicates: [ "Path=/**" ]
                """.formatted(t.name().toLowerCase(Locale.ROOT));
    }

    private static void assumeRuns(Transport t) {
        if (t == Transport.EPOLL) {
            Assumptions.assumeTrue(Transport.epollUnavailableReason() == null, "epoll: "
                    + Transport.epollUnavailableReason());
        }
    }

    /** The gateway as {@code serve} runs it: with its access log. */
    private static ServedGateway gateway(Transport t, ScriptedH2cOrigin origin) throws Exception {
        ServedGateway gw = RunningGateway.servedWithAdmin(yaml(t), "refused-after-body.yaml",
                Map.of("ORIGIN", origin.uri()));
        assertThat(gw.gateway().upstreamTransport()).isEqualTo(t);
        return gw;
    }

    private static HttpResponse<String> post(ServedGateway gw, String path, byte[] body) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gw.port() + path)).timeout(Duration.ofSeconds(20))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static byte[] body(int size) {
        byte[] b = new byte[size];
        new Random(size).nextBytes(b);
        return b;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void aRefusedStreamWhoseBodyHadStreamedGoesAgainWithTheWholeBody(Transport t, ScriptedH2cOrigin.Refusal how)
            throws Exception {
        assumeRuns(t);
        byte[] sent = body(3_100); // the fixed body of the POST that s55's sweep lost
        try (ScriptedH2cOrigin origin = new ScriptedH2cOrigin();
             ServedGateway gw = gateway(t, origin)) {
            origin.refusal = how;
            origin.refusals.set(1);
            HttpResponse<String> r = post(gw, "/refused", sent);
            assertThat(r.statusCode()).as("the client's answer").isEqualTo(200);
            assertThat(r.body()).isEqualTo("ok");
            List<ScriptedH2cOrigin.Conn> conns = origin.connections();
            assertThat(conns.getFirst().refused).as("the first stream was refused after its body").hasSize(1);
            List<byte[]> answered = conns.stream().flatMap(c -> c.answeredBodies.stream()).toList();
            assertThat(answered).as("requests the origin answered").hasSize(1);
            assertThat(answered.getFirst()).as("the body the origin got the second time").isEqualTo(sent);
            if (how == ScriptedH2cOrigin.Refusal.GOAWAY_BELOW) {
                assertThat(conns).as("the retry went on a fresh connection").hasSize(2);
                assertThat(conns.get(1).answeredBodies).hasSize(1);
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void aBodyLargerThanTheCopyRefusedAfterItStreamedIsA502(Transport t, ScriptedH2cOrigin.Refusal how)
            throws Exception {
        assumeRuns(t);
        List<String> lines = new CopyOnWriteArrayList<>();
        AppenderBase<ILoggingEvent> capture = capture(lines);
        Logger accessLog = (Logger) LoggerFactory.getLogger(AccessLog.LOGGER);
        accessLog.addAppender(capture);
        byte[] sent = body(100 * 1024); // more than the copy's 65,535 bytes: all of it streams (open windows)
        try (ScriptedH2cOrigin origin = new ScriptedH2cOrigin(true);
             ServedGateway gw = gateway(t, origin)) {
            origin.refusal = how;
            origin.refusals.set(1);
            HttpResponse<String> r = post(gw, "/too-big", sent);
            assertThat(r.statusCode()).as("the client's answer").isEqualTo(502);
            assertThat(origin.connections().getFirst().refused).as("the stream was refused after its body")
                    .hasSize(1);
            assertThat(origin.connections().stream().mapToInt(c -> c.answeredBodies.size()).sum())
                    .as("requests the origin answered: no retry").isZero();
            long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (lines.stream().noneMatch(l -> l.contains("/too-big")) && System.nanoTime() < end) {
                Thread.sleep(10); // the access log's line is written after the answer: polled, with a deadline
            }
            String line = lines.stream().filter(l -> l.contains("/too-big")).findFirst().orElseThrow();
            assertThat(line).as("the access log's line").contains("\"loomgate.failure\":\"upstream_reset\"");
        } finally {
            accessLog.detachAppender(capture);
        }
    }

    /**
     * h2dup's open cases: a stream refused (GOAWAY below it) while the client's body still streams, the retry taking
     * the body over while the refused upload's read of the client is pending, and then no more bytes from the client:
     * it times out, or leaves, or waits while the retry fails otherwise (its dial refused). Each exchange must end
     * within its bound with one access-log line of its own kind (408 {@code client_timeout}; {@code client_aborted};
     * 502 {@code connect_refused} at once, not at the read timeout), and for the refused retry the pending read must
     * be cut: the client's connection is closed after the 502 (its body's rest can never be read). Before session 59
     * that last case left the refused upload's read pending past the exchange's end, and its 502 kept the connection
     * (a connect failure does): the connection's thread then read the rest of the body to reach the next request
     * while that upload's thread was still reading the same input, two readers at once, until the read timeout.
     */
    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.EnumSource(AfterRefusal.class)
    void aRefusedUploadWhosePendingReadNeverReturnsEndsWithOneLine(AfterRefusal then) throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        AppenderBase<ILoggingEvent> capture = capture(lines);
        Logger accessLog = (Logger) LoggerFactory.getLogger(AccessLog.LOGGER);
        accessLog.addAppender(capture);
        byte[] sent = body(5_000);
        String path = "/" + then.name().toLowerCase(Locale.ROOT);
        try (ScriptedH2cOrigin origin = then.origin(3_000);
             ServedGateway gw = RunningGateway.servedWithAdmin(yaml(Transport.JDK).replace("  port: 0\n",
                     "  port: 0\n  read-timeout: " + (then == AfterRefusal.CLIENT_TIMES_OUT ? "1s" : "5s") + "\n"),
                     "refused-pending.yaml", Map.of("ORIGIN", origin.uri()));
             Socket s = new Socket("127.0.0.1", gw.port())) {
            s.setSoTimeout(20_000);
            OutputStream out = s.getOutputStream();
            out.write(("POST " + path + " HTTP/1.1\r\nHost: h\r\nContent-Length: " + sent.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            writePart(out, sent, 0, 3_000, false);
            long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!refusedOnce(origin)) {
                assertThat(System.nanoTime()).as("the origin refused the stream in time").isLessThan(end);
                Thread.sleep(5);
            }
            long refusedAt = System.nanoTime();
            if (then == AfterRefusal.CLIENT_LEAVES) {
                s.close();
            } else {
                String answer = readAnswer(s.getInputStream());
                Duration took = Duration.ofNanos(System.nanoTime() - refusedAt);
                if (then == AfterRefusal.CLIENT_TIMES_OUT) {
                    assertThat(answer).as("the client's answer").startsWith("HTTP/1.1 408");
                } else {
                    assertThat(answer).as("the client's answer").startsWith("HTTP/1.1 502")
                            .containsIgnoringCase("\r\nConnection: close\r\n");
                    assertThat(s.getInputStream().read()).as("the connection closed after the answer: the "
                            + "pending read of the body was cut").isEqualTo(-1);
                    assertThat(Duration.ofNanos(System.nanoTime() - refusedAt))
                            .as("answered and closed when the retry failed, not at the 5 s read timeout (%s to the "
                                    + "answer)", took).isLessThan(Duration.ofSeconds(3));
                }
            }
            assertOneLineAndNothingAnswered(lines, path, gw, then, origin);
        } finally {
            accessLog.detachAppender(capture);
        }
    }

    /**
     * The exchange's one access-log line (polled with a deadline: it is written after the answer) has its failure
     * kind, status and count ({@link #assertLoggedAndCounted}), and the origin answered no request.
     */
    private static void assertOneLineAndNothingAnswered(List<String> lines, String path, ServedGateway gw,
                                                        AfterRefusal then, ScriptedH2cOrigin origin) throws Exception {
        long logged = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (lines.stream().noneMatch(l -> l.contains(path)) && System.nanoTime() < logged) {
            Thread.sleep(10);
        }
        List<String> ours = lines.stream().filter(l -> l.contains(path)).toList();
        assertThat(ours).as("the access log's lines").hasSize(1);
        assertThat(ours.getFirst()).contains("\"loomgate.failure\":\"" + then.kind() + "\"");
        if (then.answered502()) { // the 3,000 bytes the refused attempt sent (logged 0 when the retry's dial failed)
            assertThat(ours.getFirst()).as("body bytes read").contains("\"http.request.body.bytes\":3000,");
        }
        assertLoggedAndCounted(gw, ours.getFirst(), then);
        assertThat(origin.connections().stream().mapToInt(c -> c.answeredBodies.size()).sum())
                .as("requests the origin answered").isZero();
    }

    /**
     * The exchange's access line has the status it must (the client's, or 499 for none), the line is valid ECS, and
     * the route's request counter has it under the status class that agrees ({@code none} for 499).
     */
    private static void assertLoggedAndCounted(ServedGateway gw, String line, AfterRefusal then) throws Exception {
        assertThat(line).as("the access line's status").contains("\"http.response.status_code\":"
                + then.loggedStatus() + ",");
        EcsSchema.assertValid(List.of(line));
        String metrics = CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gw.adminPort()
                + "/metrics")).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body();
        assertThat(new PrometheusText(metrics).value("loomgate_requests_total", "route=main", "method=POST",
                "status=" + then.statusClass())).as("POSTs counted with status class %s", then.statusClass())
                .isEqualTo(1.0);
    }

    static Stream<Arguments> http2Cases() {
        List<Arguments> out = new ArrayList<>();
        for (String listener : List.of("h2c", "jdk", "conscrypt")) {
            for (AfterRefusal then : AfterRefusal.values()) {
                out.add(Arguments.of(listener, then));
            }
        }
        return out.stream();
    }

    /**
     * The same three ends for an HTTP/2 client, h2c and h2 over TLS on both providers (session 60): the upload's
     * stream refused by the origin (GOAWAY below it) at 3,000 of its 5,000 bytes, the retry taking the body over while
     * the refused upload's read of the stream is pending; then the client sends nothing more (408 at the read
     * timeout, then RST_STREAM NO_ERROR: it need send no more), or resets the stream, or waits while the retry's dial
     * is refused (502 at once; the rest it then sends is taken and thrown away, as an early answer's), or whose
     * retries are refused by the origin too ({@code EVERY_ATTEMPT_REFUSED}: REFUSED_STREAM on each of the gateway's
     * four attempts: 502 {@code upstream_reset}, the last attempt's read of the client's stream ended with the exchange;
     * before session 60 it was left blocked to the read timeout, and the 502 waited 1.1 s for it). Each
     * ends with one access-log line of its kind, and the connection goes on serving: a GET on a new stream of it, to
     * another route, is answered 200.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("http2Cases")
    void anHttp2ClientsRefusedUploadEndsItsStreamAndTheConnectionServesTheNext(String listener, AfterRefusal then)
            throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        AppenderBase<ILoggingEvent> capture = capture(lines);
        Logger accessLog = (Logger) LoggerFactory.getLogger(AccessLog.LOGGER);
        accessLog.addAppender(capture);
        byte[] sent = body(5_000);
        String path = "/h2-" + listener + "-" + then.name().toLowerCase(Locale.ROOT) + "";
        TestPki pki = listener.equals("h2c") ? null : TestPki.create("refused h2 upload CA");
        String server = "  port: 0\n  read-timeout: " + (then == AfterRefusal.CLIENT_TIMES_OUT ? "1s" : "5s")
                + "\n  http2:\n    enabled: true\n";
        if (pki != null) {
            TestPki.Issued cert = pki.issue("gateway", "localhost", "localhost");
            server += "  ssl:\n    provider: " + listener + "\n    certificate: " + cert.cert()
                    + "\n    certificate-private-key: " + cert.key() + "\n";
        }
        String yaml = yaml(Transport.JDK).replace("  port: 0\n", server).replace("routes:\n",
                "routes:\n  - id: next\n    uri: ${NEXT}\n    predicates: [ \"Path=/next/**\" ]\n");
        try (ScriptedH2cOrigin origin = then.origin(3_000);
             TestOrigin next = new TestOrigin();
             ServedGateway gw = RunningGateway.servedWithAdmin(yaml, "refused-pending-h2.yaml",
                     Map.of("ORIGIN", origin.uri(), "NEXT", next.uri()));
             RawH2Client c = new RawH2Client(connect(gw.port(), pki))) {
            next.enqueue(TestOrigin.Reply.ok("next"));
            c.headers(1, RawH2Client.request("POST", path, "content-length", Integer.toString(sent.length)), false);
            c.data(1, Arrays.copyOf(sent, 3_000), false);
            long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!refusedOnce(origin)) {
                assertThat(System.nanoTime()).as("the origin refused the stream in time").isLessThan(end);
                Thread.sleep(5);
            }
            long refusedAt = System.nanoTime();
            if (then == AfterRefusal.CLIENT_LEAVES) {
                c.rst(1, Frames.CANCEL);
            } else {
                RawH2Client.Frame head = c.await(f -> f.is(Frames.HEADERS, 1));
                Duration took = Duration.ofNanos(System.nanoTime() - refusedAt);
                assertThat(c.fields(head)).containsEntry(":status",
                        then == AfterRefusal.CLIENT_TIMES_OUT ? "408" : "502");
                RawH2Client.Frame endOfAnswer = c.await(f -> f.stream() == 1 && (f.flags() & Frames.FLAG_END_STREAM)
                        != 0 && (f.type() == Frames.DATA || f.type() == Frames.HEADERS));
                assertThat(endOfAnswer).as("the answer ended").isNotNull();
                if (then == AfterRefusal.CLIENT_TIMES_OUT) {
                    RawH2Client.Frame rst = c.await(f -> f.is(Frames.RST_STREAM, 1));
                    assertThat(rst).as("the client told to stop sending").isNotNull();
                    assertThat(rst.errorCode()).isEqualTo(Frames.NO_ERROR);
                } else {
                    assertThat(took).as("502 when the retry failed, not at the 5 s read timeout")
                            .isLessThan(Duration.ofSeconds(3));
                    // The last attempt's read of the stream's body ends with the exchange: before session 60 it
                    // stayed blocked to the 5 s read timeout (an HTTP/2 stream's read was not cut before its
                    // answer), and held the 502 for RequestUpload.stop's joins (1.1 s).
                    long gone = System.nanoTime() + Duration.ofSeconds(2).toNanos();
                    List<String> uploads = Http2LingerTest.threadsNamed("h2-upload-[^\"]*");
                    while (!uploads.isEmpty() && System.nanoTime() < gone) {
                        Thread.sleep(20);
                        uploads = Http2LingerTest.threadsNamed("h2-upload-[^\"]*");
                    }
                    assertThat(uploads).as("upload threads still reading the client").isEmpty();
                    c.data(1, Arrays.copyOfRange(sent, 3_000, sent.length), true); // taken and thrown away
                }
            }
            c.get(3, "/next/x");
            RawH2Client.Frame nextHead = c.await(f -> f.is(Frames.HEADERS, 3));
            assertThat(nextHead).as("an answer on the next stream: %s", c.endedBy()).isNotNull();
            assertThat(c.fields(nextHead)).as("the next stream on the same connection").containsEntry(":status", "200");
            assertOneLineAndNothingAnswered(lines, path, gw, then, origin);
        } finally {
            accessLog.detachAppender(capture);
        }
    }

    /** h2c by prior knowledge, or h2 chosen by ALPN over TLS (the test CA's client) when {@code pki} is given. */
    private static Socket connect(int port, TestPki pki) throws IOException {
        if (pki == null) {
            return new Socket("127.0.0.1", port);
        }
        javax.net.ssl.SSLSocket s = (javax.net.ssl.SSLSocket) pki.clientContext(null).getSocketFactory()
                .createSocket(java.net.InetAddress.getLoopbackAddress(), port);
        javax.net.ssl.SSLParameters p = s.getSSLParameters();
        p.setApplicationProtocols(new String[] {"h2"});
        s.setSSLParameters(p);
        s.startHandshake();
        assertThat(s.getApplicationProtocol()).as("ALPN").isEqualTo("h2");
        return s;
    }

    /** How long the slow client waits after the refusal before it sends the rest: longer than the old 100 ms cut. */
    private static final Duration CLIENT_PAUSE = Duration.ofMillis(300);

    /**
     * The bound a user sets (session 57's decision, docs/configuration.md): a body past the refusal copy's 65,535
     * bytes goes again under a {@code Retry} filter whose {@code max-replay-size} holds it, as Envoy's retry buffer is
     * {@code per_request_buffer_limit_bytes}.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void aBodyLargerThanTheCopyGoesAgainUnderARetryWhoseReplaySizeHoldsIt(Transport t,
            ScriptedH2cOrigin.Refusal how) throws Exception {
        assumeRuns(t);
        byte[] sent = body(100 * 1024);
        String yaml = yaml(t) + """
                    filters:
                      - name: Retry
                        args:
                          retries: 1
                          max-replay-size: 256KB
                """;
        try (ScriptedH2cOrigin origin = new ScriptedH2cOrigin(true);
             ServedGateway gw = RunningGateway.servedWithAdmin(yaml, "refused-retry.yaml",
                     Map.of("ORIGIN", origin.uri()))) {
            origin.refusal = how;
            origin.refusals.set(1);
            HttpResponse<String> r = post(gw, "/retry-holds-it", sent);
            assertThat(r.statusCode()).as("the client's answer").isEqualTo(200);
            List<byte[]> answered = origin.connections().stream().flatMap(c -> c.answeredBodies.stream()).toList();
            assertThat(answered).as("requests the origin answered").hasSize(1);
            assertThat(answered.getFirst()).as("the body the origin got the second time").isEqualTo(sent);
        }
    }

    static Stream<Arguments> slowCases() {
        List<Arguments> out = new ArrayList<>();
        // both transports, both refusals, both framings, in 4 cases (each waits out the client's pause once)
        for (Arguments a : cases().toList()) {
            out.add(Arguments.of(a.get()[0], a.get()[1], a.get()[1] == ScriptedH2cOrigin.Refusal.GOAWAY_BELOW));
        }
        return out.stream();
    }

    /**
     * Session 57: the origin refuses the stream while the client is still sending its body (a slow client: the first
     * part came, the rest comes {@link #CLIENT_PAUSE} after the refusal). The gateway's upload was blocked reading
     * the client; until then its stop cut the client's input after 100 ms and the client got a 502 (a client that
     * went on within those 100 ms was already retried). Now the request goes again on a fresh
     * stream with the part already read, then the rest as it comes: the origin gets the body once, whole, in order.
     */
    @ParameterizedTest(name = "{0} {1} chunked={2}")
    @MethodSource("slowCases")
    void aStreamRefusedWhileTheBodyStillStreamsGoesOnWithTheRest(Transport t, ScriptedH2cOrigin.Refusal how,
            boolean chunked) throws Exception {
        assumeRuns(t);
        byte[] sent = body(5_000);
        try (ScriptedH2cOrigin origin = refusingAt(how, 3_000);
             ServedGateway gw = gateway(t, origin)) {
            String answer = slowPost(gw, "/slow", sent, 3_000, chunked, () -> refusedOnce(origin));
            assertThat(answer).as("the client's answer").startsWith("HTTP/1.1 200").contains("\r\nok\r\n");
            List<ScriptedH2cOrigin.Conn> conns = origin.connections();
            assertThat(conns.getFirst().refused).as("the first stream was refused mid-body").hasSize(1);
            List<byte[]> answered = conns.stream().flatMap(c -> c.answeredBodies.stream()).toList();
            assertThat(answered).as("requests the origin answered").hasSize(1);
            assertThat(answered.getFirst()).as("the body the origin got the second time: once, whole")
                    .isEqualTo(sent);
        }
    }

    /**
     * The same refusal, but what the client sends after it takes the body past the copy's 65,535 bytes (chunked: no
     * declared length to refuse a copy for). Session 57 waited for that read and then found the copy gone: a 502.
     * Since session 58 the retry has started before that read returns, so the read is kept for it whatever its size
     * (one read's worth past the bound at most) and the rest streams on: the origin gets the body once, whole.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void aBodyPassingTheCopyAfterTheRefusalGoesOnWithTheReadThatPassedIt(Transport t, ScriptedH2cOrigin.Refusal how)
            throws Exception {
        assumeRuns(t);
        byte[] sent = body(65_000 + 10_000);
        // open windows: the retry's 75,000 bytes pass the default windows the refused stream used up
        try (ScriptedH2cOrigin origin = refusingAt(how, 65_000, true);
             ServedGateway gw = gateway(t, origin)) {
            String answer = slowPost(gw, "/past-bound", sent, 65_000, true, () -> refusedOnce(origin));
            assertThat(answer).as("the client's answer").startsWith("HTTP/1.1 200");
            List<byte[]> answered = origin.connections().stream().flatMap(c -> c.answeredBodies.stream()).toList();
            assertThat(answered).as("requests the origin answered").hasSize(1);
            assertThat(answered.getFirst()).as("the body the origin got the second time: once, whole")
                    .isEqualTo(sent);
        }
    }

    /** One JDK and one epoll case, the two refusals, the two framings: the full-duplex and Retry cases below. */
    static Stream<Arguments> twoCases() {
        return Stream.of(Arguments.of(Transport.JDK, ScriptedH2cOrigin.Refusal.REFUSED_STREAM, true),
                Arguments.of(Transport.EPOLL, ScriptedH2cOrigin.Refusal.GOAWAY_BELOW, false));
    }

    /** How long the full-duplex client waits for the origin's echo (the route's timeout is the default 30 s). */
    private static final Duration ECHO_WAIT = Duration.ofSeconds(5);

    /**
     * Session 58: a full-duplex client that sends a part of its body and then waits for the origin's answer to it
     * before it sends more (an echo), refused while it waits. The retry starts at once with the part kept: the new
     * stream's echo reaches the client, the client sends the rest, and that goes on the new stream after the part
     * (the refused attempt's pending read hands it over). In session 57 the gateway waited for the client's next
     * bytes before it retried, the client for the gateway's echo: to the route's timeout, then a 502; before that, a
     * 502 after 100 ms.
     */
    @ParameterizedTest(name = "{0} {1} chunked={2}")
    @MethodSource("twoCases")
    void aFullDuplexClientThatWaitsForTheOriginGetsItsEchoAfterARefusal(Transport t, ScriptedH2cOrigin.Refusal how,
            boolean chunked) throws Exception {
        assumeRuns(t);
        byte[] sent = body(5_000);
        try (ScriptedH2cOrigin origin = refusingAt(how, 3_000);
             ServedGateway gw = gateway(t, origin);
             Socket s = new Socket("127.0.0.1", gw.port())) {
            origin.answer = ScriptedH2cOrigin.Answer.ECHO;
            s.setSoTimeout((int) ECHO_WAIT.toMillis());
            OutputStream out = s.getOutputStream();
            String framing = chunked ? "Transfer-Encoding: chunked" : "Content-Length: " + sent.length;
            out.write(("POST /duplex HTTP/1.1\r\nHost: h\r\n" + framing + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            writePart(out, sent, 0, 3_000, chunked);
            InputStream in = new java.io.BufferedInputStream(s.getInputStream());
            String head = readLine(in);
            assertThat(head).as("the answer's status line, before the client sends more").startsWith("HTTP/1.1 200");
            while (!readLine(in).isEmpty()) {
                // the rest of the head (the body is chunked: the origin sent no length)
            }
            ByteArrayOutputStream echoed = new ByteArrayOutputStream();
            readChunks(in, echoed, 3_000);
            assertThat(echoed.toByteArray()).as("the echo of the part sent").isEqualTo(Arrays.copyOf(sent, 3_000));
            writePart(out, sent, 3_000, sent.length - 3_000, chunked);
            if (chunked) {
                out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            readChunks(in, echoed, Integer.MAX_VALUE);
            assertThat(echoed.toByteArray()).as("the whole echo").isEqualTo(sent);
            List<ScriptedH2cOrigin.Conn> conns = origin.connections();
            assertThat(conns.getFirst().refused).as("the first stream was refused mid-body").hasSize(1);
            List<byte[]> answered = conns.stream().flatMap(c -> c.answeredBodies.stream()).toList();
            assertThat(answered).as("requests the origin answered").hasSize(1);
            assertThat(answered.getFirst()).as("the body the origin got the second time: once, whole")
                    .isEqualTo(sent);
        }
    }

    /**
     * Session 58: the slow client's refusal on a route with a {@code Retry} filter. Its replay copy goes to the
     * retry at once (as for a retried status), so the body goes again within {@code max-replay-size}; a refusal spends
     * no retry, so two of them pass a {@code retries: 1}. Until then this was a 502: the upload's stop cut the
     * client's input.
     */
    @ParameterizedTest(name = "{0} {1} chunked={2}")
    @MethodSource("twoCases")
    void aStreamRefusedWhileTheBodyStreamsGoesAgainUnderARetryWithoutSpendingIt(Transport t,
            ScriptedH2cOrigin.Refusal how, boolean chunked) throws Exception {
        assumeRuns(t);
        byte[] sent = body(5_000);
        String yaml = yaml(t) + """
                    filters:
                      - name: Retry
                        args:
                          retries: 1
                          max-replay-size: 64KB
                """;
        try (ScriptedH2cOrigin origin = refusingAt(how, 3_000);
             ServedGateway gw = RunningGateway.servedWithAdmin(yaml, "refused-retry-slow.yaml",
                     Map.of("ORIGIN", origin.uri()))) {
            origin.refusals.set(2);
            String answer = slowPost(gw, "/slow-retry", sent, 3_000, chunked, () -> refusedOnce(origin));
            assertThat(answer).as("the client's answer").startsWith("HTTP/1.1 200").contains("\r\nok\r\n");
            List<ScriptedH2cOrigin.Conn> conns = origin.connections();
            assertThat(conns.stream().mapToInt(c -> c.refused.size()).sum()).as("streams refused mid-body")
                    .isEqualTo(2);
            List<byte[]> answered = conns.stream().flatMap(c -> c.answeredBodies.stream()).toList();
            assertThat(answered).as("requests the origin answered").hasSize(1);
            assertThat(answered.getFirst()).as("the body the origin got the third time: once, whole")
                    .isEqualTo(sent);
        }
    }

    /** One line of an HTTP/1.1 head or chunk header, without its CRLF. */
    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c; (c = in.read()) != '\n'; ) {
            if (c < 0) {
                throw new IOException("the connection ended in a line: " + line);
            }
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }

    /** Reads chunks of a chunked body into {@code to} until it holds {@code total} bytes or the body ends. */
    private static void readChunks(InputStream in, ByteArrayOutputStream to, int total) throws IOException {
        while (to.size() < total) {
            int size = Integer.parseInt(readLine(in).trim(), 16);
            if (size == 0) {
                readLine(in);
                return;
            }
            to.write(in.readNBytes(size));
            readLine(in);
        }
    }

    /** An appender, started, that adds each event's message to {@code lines}. */
    static AppenderBase<ILoggingEvent> capture(List<String> lines) {
        AppenderBase<ILoggingEvent> capture = new AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent e) {
                lines.add(e.getFormattedMessage());
            }
        };
        capture.start();
        return capture;
    }

    /** An origin that refuses the next request {@code how} once {@code bytes} of its body came. */
    static ScriptedH2cOrigin refusingAt(ScriptedH2cOrigin.Refusal how, int bytes) throws IOException {
        return refusingAt(how, bytes, false);
    }

    /** As {@link #refusingAt(ScriptedH2cOrigin.Refusal, int)}; {@code openWindows}: see {@link ScriptedH2cOrigin}. */
    private static ScriptedH2cOrigin refusingAt(ScriptedH2cOrigin.Refusal how, int bytes, boolean openWindows)
            throws IOException {
        ScriptedH2cOrigin origin = new ScriptedH2cOrigin(openWindows);
        origin.refusal = how;
        origin.refuseAtBytes = bytes;
        origin.refusals.set(1);
        return origin;
    }

    private static boolean refusedOnce(ScriptedH2cOrigin origin) {
        return !origin.connections().isEmpty() && !origin.connections().getFirst().refused.isEmpty();
    }

    /**
     * A POST on a raw socket: the head and {@code first} bytes of {@code body}, then, once {@code then} holds (polled,
     * with a deadline), the rest; returns the whole answer as text.
     */
    private static String slowPost(ServedGateway gw, String path, byte[] body, int first, boolean chunked,
            BooleanSupplier then) throws Exception {
        try (Socket s = new Socket("127.0.0.1", gw.port())) {
            s.setSoTimeout(20_000);
            OutputStream out = s.getOutputStream();
            String framing = chunked ? "Transfer-Encoding: chunked" : "Content-Length: " + body.length;
            out.write(("POST " + path + " HTTP/1.1\r\nHost: h\r\n" + framing + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            writePart(out, body, 0, first, chunked);
            long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!then.getAsBoolean()) {
                assertThat(System.nanoTime()).as("the origin refused the stream in time").isLessThan(end);
                Thread.sleep(5);
            }
            // the slow client: a pause before the rest, watching for an early answer (the old 502 came in it)
            InputStream in = s.getInputStream();
            s.setSoTimeout((int) CLIENT_PAUSE.toMillis());
            int early = -1;
            try {
                early = in.read();
            } catch (SocketTimeoutException e) {
                // nothing came: the gateway waits for the rest of the body
            }
            s.setSoTimeout(20_000);
            if (early >= 0) {
                return (char) early + readAnswer(in);
            }
            try {
                writePart(out, body, first, body.length - first, chunked);
                if (chunked) {
                    out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                }
            } catch (IOException e) {
                // the gateway answered and closed before the rest went (a 502): read that answer
            }
            return readAnswer(s.getInputStream());
        }
    }

    private static void writePart(OutputStream out, byte[] body, int off, int len, boolean chunked)
            throws IOException {
        if (chunked) {
            out.write((Integer.toHexString(len) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        }
        out.write(body, off, len);
        if (chunked) {
            out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        out.flush();
    }

    /** The answer up to the end of its body (Content-Length) or of the connection. */
    static String readAnswer(InputStream in) throws IOException {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] b = new byte[4096];
        int headEnd = -1;
        int length = -1;
        for (int n; (n = in.read(b)) >= 0; ) {
            got.write(b, 0, n);
            String text = got.toString(StandardCharsets.ISO_8859_1);
            if (headEnd < 0 && (headEnd = text.indexOf("\r\n\r\n")) >= 0) {
                for (String line : text.substring(0, headEnd).split("\r\n")) {
                    if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                        length = Integer.parseInt(line.substring(15).trim());
                    }
                }
            }
            if (headEnd >= 0 && length >= 0 && got.size() >= headEnd + 4 + length) {
                break;
            }
        }
        return got.toString(StandardCharsets.ISO_8859_1);
    }
}
