package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.TlsServerCredentials;
import io.loomgate.cli.ServedGateway;
import io.loomgate.http2.Http2LingerTest;
import io.loomgate.observe.AccessLog;
import io.loomgate.testkit.EcsSchema;
import io.loomgate.testkit.PrometheusText;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestPki;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;

/**
 * Session 61: gRPC calls that end early or badly, driven by grpc-java's client through the gateway to grpc-java's
 * server ({@link GrpcEcho}). A matrix: how the call ends ({@link End}) × the listener (h2c; h2 over TLS on the jdk and
 * the conscrypt provider) × the origin (h2c; h2 over TLS). The route has {@code Retry} on it (POST, 5xx, IOException),
 * so every cell also shows that a call ended by its client is never sent again.
 *
 * <p>Each cell asserts: the gRPC status grpc-java's client reports; that the origin saw the call once and, for a call
 * its client gave up, saw it cancelled promptly (its {@code onCancel}); that the origin was told the deadline
 * (what is left of the client's {@code grpc-timeout}); one access line for the call with its status (499 for a client
 * that left before any head; the head's 200 otherwise) and failure kind, ECS-valid; the route's request counter and the
 * gRPC counter agreeing with that line; a client-streaming call open on the same connection across the end, finished
 * after it whole (the connection unharmed); and afterwards no stream left on the gateway: no stream thread
 * ({@code h2-<connection>-<stream>}) or upload thread, and no stream open to the origin
 * ({@code loomgate_upstream_connections{state="http2_streams"}} back to 0).
 */
class GrpcCallEndsMatrixTest {
    private static final HttpClient ADMIN = HttpClient.newHttpClient();
    /** How long anything the test waits for may take on a loaded two-core machine. */
    private static final Duration WAIT = Duration.ofSeconds(10);
    /** The client's deadline in the cells that do not test it: never reached. */
    private static final long LONG_DEADLINE_S = 60;
    /** The client's deadline in {@link End#CLIENT_DEADLINE}: passes while the origin sleeps. */
    private static final long SHORT_DEADLINE_MS = 1_500;

    /** How the call ends, and what its client, the access log and the counters must say then. */
    enum End {
        /** The client cancels a unary call before the origin answered: no head went out. */
        UNARY_CANCELLED("Unary", Status.Code.CANCELLED, List.of(new Logged(499, "client_aborted", "none"))),
        /** The client cancels a server-streaming call after three messages: the origin's head had gone out. */
        SERVER_STREAM_CANCELLED("ServerStream", Status.Code.CANCELLED,
                List.of(new Logged(200, "client_aborted", "2xx"))),
        /** The client cancels a bidi call after one echo. */
        BIDI_CANCELLED("Bidi", Status.Code.CANCELLED, List.of(new Logged(200, "client_aborted", "2xx"))),
        /**
         * The client's deadline passes while the origin works (the origin was told it, reduced). Two ends are right,
         * and which comes first is a race: grpc-java's client resets the stream at its deadline, which falls a little
         * before the gateway's (it counted from before the gateway read the head), so the gateway sees a client that
         * left (499); or the gateway's watchdog fires first and answers DEADLINE_EXCEEDED itself (200). Either way the
         * call is logged and counted with the status the client reports, DEADLINE_EXCEEDED.
         */
        CLIENT_DEADLINE("Unary", Status.Code.DEADLINE_EXCEEDED, List.of(new Logged(499, "client_aborted", "none"),
                new Logged(200, "deadline_exceeded", "2xx"))),
        /** The origin answers DEADLINE_EXCEEDED itself (trailers-only): an answer like any other, relayed. */
        ORIGIN_DEADLINE_EXCEEDED("Unary", Status.Code.DEADLINE_EXCEEDED, List.of(new Logged(200, null, "2xx")));

        final String method;
        final Status.Code clientSees;
        final List<Logged> logged;

        End(String method, Status.Code clientSees, List<Logged> logged) {
            this.method = method;
            this.clientSees = clientSees;
            this.logged = logged;
        }

        /** Whether the origin must see the call cancelled (its client gave up on it). */
        boolean originCancelled() {
            return this != ORIGIN_DEADLINE_EXCEEDED;
        }
    }

    /** An access line's status, failure kind (null: none) and the status class the request counter has it under. */
    record Logged(int status, String failure, String statusClass) {
    }

    static Stream<Arguments> cells() {
        List<Arguments> out = new ArrayList<>();
        for (String listener : List.of("h2c", "jdk", "conscrypt")) {
            for (String originKind : List.of("h2c", "tls")) {
                for (End end : End.values()) {
                    out.add(Arguments.of(listener, originKind, end));
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} listener, {1} origin, {2}")
    @MethodSource("cells")
    void aCallEndedEarlyIsLoggedCountedAndCancelledOnceAndHarmsNoOther(String listener, String originKind, End end)
            throws Exception {
        TestPki pki = TestPki.create("gRPC call ends CA");
        TestPki.Issued gwCert = pki.issue("gateway", "localhost", "localhost");
        TestPki.Issued originCert = pki.issue("grpc-origin", "localhost", "localhost");
        List<String> lines = new CopyOnWriteArrayList<>();
        AppenderBase<ILoggingEvent> capture = capture(lines);
        Logger accessLog = (Logger) LoggerFactory.getLogger(AccessLog.LOGGER);
        accessLog.addAppender(capture);
        try (GrpcEcho origin = originKind.equals("tls")
                ? new GrpcEcho(TlsServerCredentials.create(originCert.cert().toFile(), originCert.key().toFile()))
                : new GrpcEcho();
             ServedGateway gw = RunningGateway.servedWithAdmin(yaml(listener, originKind), "grpc-call-ends.yaml",
                     Map.of("ORIGIN_PORT", Integer.toString(origin.port()), "CA", pki.caCert().toString(),
                             "CERT", gwCert.cert().toString(), "KEY", gwCert.key().toString()))) {
            ManagedChannel channel = listener.equals("h2c") ? GrpcEcho.plaintext(gw.port())
                    : GrpcEcho.tls(gw.port(), pki.caCert());
            try {
                // A call on the same connection, open across the end: it must finish whole after it.
                Call bystander = new Call(channel, GrpcEcho.CLIENT_STREAM, CallOptions.DEFAULT.withDeadlineAfter(
                        LONG_DEADLINE_S, TimeUnit.SECONDS));
                bystander.call.sendMessage(GrpcEcho.text("before"));
                assertThat(origin.started.poll(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the bystander reached the"
                        + " origin (the connection is up)").isEqualTo("ClientStream");
                origin.deadlineLeftMs.clear();

                Status status = run(end, channel, origin);
                assertThat(status.getCode()).as("what the client saw: %s", status).isEqualTo(end.clientSees);
                if (end == End.ORIGIN_DEADLINE_EXCEEDED) {
                    assertThat(status.getDescription()).as("the origin's own words").isEqualTo("too slow here");
                }
                if (end.originCancelled()) {
                    assertThat(origin.cancelled.poll(WAIT.toSeconds(), TimeUnit.SECONDS))
                            .as("the origin saw the call cancelled").isEqualTo(end.method);
                }

                bystander.call.sendMessage(GrpcEcho.text("after!"));
                bystander.call.halfClose();
                assertThat(GrpcEcho.text(bystander.next())).as("the bystander's count: both messages")
                        .isEqualTo("2 12");
                assertThat(bystander.status().getCode()).isEqualTo(Status.Code.OK);

                String path = "/" + GrpcEcho.SERVICE + "/" + end.method;
                String line = awaitOnlyLine(lines, path);
                Logged logged = end.logged.stream().filter(l -> line.contains("\"http.response.status_code\":"
                        + l.status() + ",")).findFirst().orElse(null);
                assertThat(logged).as("the access line's status, one of %s: %s", end.logged, line).isNotNull();
                if (logged.failure() == null) {
                    assertThat(line).as("the access line").doesNotContain("loomgate.failure");
                } else {
                    assertThat(line).as("the access line's failure kind")
                            .contains("\"loomgate.failure\":\"" + logged.failure() + "\"");
                }
                assertThat(line).as("the access line's grpc-status: the one the client reports")
                        .contains("\"loomgate.grpc_status\":" + end.clientSees.value() + ",");
                EcsSchema.assertValid(List.of(line));
                awaitOnlyLine(lines, "/" + GrpcEcho.SERVICE + "/ClientStream");

                PrometheusText metrics = scrape(gw);
                double counted = logged.statusClass().equals("2xx") ? 2 : 1; // the bystander is a 2xx too
                assertThat(metrics.value("loomgate_requests_total", "route=rpc", "method=POST",
                        "status=" + logged.statusClass())).as("calls counted %s", logged.statusClass())
                        .isEqualTo(counted);
                assertThat(metrics.value("loomgate_grpc_requests_total", "route=rpc",
                        "grpc_status=" + end.clientSees.name())).as("gRPC calls counted %s", end.clientSees)
                        .isEqualTo(1);
                assertThat(metrics.value("loomgate_grpc_requests_total", "route=rpc", "grpc_status=OK"))
                        .as("gRPC calls counted OK: the bystander").isEqualTo(1);
                assertThat(List.copyOf(origin.started)).as("calls the origin was asked after the bystander: this one,"
                        + " once (never retried)").containsExactly(end.method);
                long told = origin.deadlineLeftMs.poll();
                long clientDeadline = end == End.CLIENT_DEADLINE ? SHORT_DEADLINE_MS : LONG_DEADLINE_S * 1_000;
                assertThat(told).as("the deadline the origin was told (ms left), within the client's")
                        .isPositive().isLessThanOrEqualTo(clientDeadline);
            } finally {
                GrpcEcho.close(channel);
            }
            awaitNothingLeftRunning(gw);
        } finally {
            accessLog.detachAppender(capture);
        }
    }

    /** Makes the call and ends it as {@code end} says; the status the client reports. */
    private static Status run(End end, ManagedChannel channel, GrpcEcho origin) throws Exception {
        CallOptions longDeadline = CallOptions.DEFAULT.withDeadlineAfter(LONG_DEADLINE_S, TimeUnit.SECONDS);
        return switch (end) {
            case UNARY_CANCELLED -> {
                Call c = new Call(channel, GrpcEcho.UNARY, longDeadline);
                c.call.sendMessage(GrpcEcho.text("sleep 60000"));
                c.call.halfClose();
                awaitTrue(() -> origin.started.contains("Unary"), "the call reached the origin");
                c.call.cancel("the client gives up", null);
                yield c.status();
            }
            case SERVER_STREAM_CANCELLED -> {
                Call c = new Call(channel, GrpcEcho.SERVER_STREAM, longDeadline);
                c.call.sendMessage(GrpcEcho.text("3 then wait"));
                c.call.halfClose();
                for (int i = 0; i < 3; i++) {
                    assertThat(GrpcEcho.text(c.next())).isEqualTo("message " + i);
                }
                c.call.cancel("the client has seen enough", null);
                yield c.status();
            }
            case BIDI_CANCELLED -> {
                Call c = new Call(channel, GrpcEcho.BIDI, longDeadline);
                c.call.sendMessage(GrpcEcho.text("ping"));
                assertThat(GrpcEcho.text(c.next())).isEqualTo("ping");
                c.call.cancel("the client hangs up mid-stream", null);
                yield c.status();
            }
            case CLIENT_DEADLINE -> {
                Call c = new Call(channel, GrpcEcho.UNARY, CallOptions.DEFAULT.withDeadlineAfter(SHORT_DEADLINE_MS,
                        TimeUnit.MILLISECONDS));
                c.call.sendMessage(GrpcEcho.text("sleep 60000"));
                c.call.halfClose();
                yield c.status();
            }
            case ORIGIN_DEADLINE_EXCEEDED -> {
                Call c = new Call(channel, GrpcEcho.UNARY, longDeadline);
                c.call.sendMessage(GrpcEcho.text("deadline too slow here"));
                c.call.halfClose();
                yield c.status();
            }
        };
    }

    private static String yaml(String listener, String originKind) {
        String tls = listener.equals("h2c") ? "" : """
                  ssl:
                    provider: %s
                    certificate: ${CERT}
                    certificate-private-key: ${KEY}
                """.formatted(listener);
        String upstream = originKind.equals("h2c") ? "" : """
                upstream:
                  http2: true
                  ssl:
                    trust-certificate: ${CA}
                """;
        String uri = originKind.equals("h2c") ? "h2c://127.0.0.1:${ORIGIN_PORT}" : "https://localhost:${ORIGIN_PORT}";
        return """
                server:
                  address: 127.0.0.1
                  port: 0
                  http2:
                    enabled: true
                """ + tls + """
                admin:
                  port: ${ADMIN_PORT}
                access-log:
                  enabled: true
                  format: json
                """ + upstream + """
                routes:
                  - id: rpc
                    uri: %s
                    predicates: [ "Path=/test.Echo/**" ]
                    filters:
                      - name: Retry
                        args:
                          retries: 2
                          methods: POST
                          series: SERVER_ERROR
                          exceptions: IOException
                          backoff: { firstBackoff: 1ms, maxBackoff: 5ms }
                """.formatted(uri);
    }

    /** The one access line for {@code path} (written after the answer: polled with a deadline). */
    private static String awaitOnlyLine(List<String> lines, String path) throws InterruptedException {
        String quoted = "\"url.path\":\"" + path + "\"";
        awaitTrue(() -> lines.stream().anyMatch(l -> l.contains(quoted)), "an access line for " + path);
        List<String> ours = lines.stream().filter(l -> l.contains(quoted)).toList();
        assertThat(ours).as("the access lines for %s", path).hasSize(1);
        return ours.getFirst();
    }

    /**
     * Nothing of the calls is left on the gateway once they ended: no stream's thread, no upload thread, no stream
     * open to the origin.
     */
    private static void awaitNothingLeftRunning(ServedGateway gw) throws Exception {
        awaitTrue(() -> {
            try {
                return Http2LingerTest.threadsNamed("h2-\\d+-\\d+|h2-upload-[^\"]*").isEmpty();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, "no stream or upload thread left");
        awaitTrue(() -> scrape(gw).value("loomgate_upstream_connections", "state=http2_streams") == 0,
                "no stream left open to the origin");
    }

    private static PrometheusText scrape(ServedGateway gw) {
        try {
            return new PrometheusText(ADMIN.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + gw.adminPort() + "/metrics")).timeout(WAIT).build(), HttpResponse.BodyHandlers.ofString())
                    .body());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void awaitTrue(BooleanSupplier done, String what) throws InterruptedException {
        long end = System.nanoTime() + WAIT.toNanos();
        while (!done.getAsBoolean()) {
            assertThat(System.nanoTime()).as(what + " within %s", WAIT).isLessThan(end);
            Thread.sleep(10);
        }
    }

    /** An appender, started, that adds each line of each event's message (an event may hold several) to a list. */
    private static AppenderBase<ILoggingEvent> capture(List<String> lines) {
        AppenderBase<ILoggingEvent> capture = new AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent e) {
                lines.addAll(e.getFormattedMessage().lines().toList());
            }
        };
        capture.start();
        return capture;
    }

    /** The client's side of one call: the messages it got, and its status once closed. */
    private static final class Call extends ClientCall.Listener<byte[]> {
        final BlockingQueue<byte[]> messages = new LinkedBlockingQueue<>();
        final CompletableFuture<Status> closed = new CompletableFuture<>();
        final ClientCall<byte[], byte[]> call;

        Call(ManagedChannel channel, MethodDescriptor<byte[], byte[]> method, CallOptions options) {
            call = channel.newCall(method, options);
            call.start(this, new Metadata());
            call.request(Integer.MAX_VALUE);
        }

        @Override
        public void onMessage(byte[] message) {
            messages.add(message);
        }

        @Override
        public void onClose(Status status, Metadata trailers) {
            closed.complete(status);
        }

        byte[] next() throws Exception {
            byte[] m = messages.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(m).as("a message within %s (the call: %s)", WAIT, closed.getNow(null)).isNotNull();
            return m;
        }

        Status status() throws Exception {
            return closed.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
    }
}
