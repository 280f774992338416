package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import io.loomgate.cli.ServedGateway;
import io.loomgate.observe.AccessLog;
import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.PrometheusText;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;

/**
 * A route with {@code Retry} and {@code CircuitBreaker} whose first try is refused (an h1 origin's dial refused; an
 * h2 origin's REFUSED_STREAM, or a GOAWAY below the stream), while other requests' failures open the breaker (another
 * route naming the same breaker) after the call took its permit and before the retry goes. The breaker runs around the route's attempts, so the call
 * took its permit while the breaker was closed; until session 61 its retry went to the upstream the breaker was
 * keeping everyone else from. Now the retry is not sent: the client gets the breaker's answer (503 with
 * {@code Retry-After}, or the fallback route with the breaker's {@code CallNotPermittedException}), logged and
 * counted {@code circuit_open} once, and {@code loomgate_retries_total{outcome="circuit_open"}} says why no retry.
 */
class BreakerOpenedBeforeRetryTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private static final String BODY = "a body the origin refused";

    /** How the first try fails, and whether the breaker has a fallback. */
    enum Cell {
        /**
         * An HTTP/1.1 origin's dial refused. The breaker opens while the call waits for the client's body
         * ({@code CacheRequestBody}), its permit taken (the route's limiter, inside the call, has counted it), so the
         * dial is refused after it opened and its retry is due at once: no timing.
         */
        H1_CONNECT_REFUSED(null, false),
        H1_CONNECT_REFUSED_FALLBACK(null, true),
        /** An h2c origin refuses the POST's stream; the breaker opens before the refusal comes. */
        H2_REFUSED_STREAM(ScriptedH2cOrigin.Refusal.REFUSED_STREAM, false),
        H2_GOAWAY_BELOW(ScriptedH2cOrigin.Refusal.GOAWAY_BELOW, false),
        /** The POST's body read whole first ({@code CacheRequestBody}, as in both h1 cells): the fallback gets it. */
        H2_REFUSED_STREAM_CACHED_BODY_FALLBACK(ScriptedH2cOrigin.Refusal.REFUSED_STREAM, true),
        /**
         * The stream refused at the body's first byte while the client (HTTP/1.1, raw) holds the rest: the body is
         * handed over to the retry (its upload's pending read with it) before the breaker is asked; the retry is not
         * sent, the 503 goes out at once and the connection closes (the refused upload's pending read cut: the rest
         * of the body can never be read; before that fix it waited the 5 s drain limit for it).
         */
        H2_REFUSED_MID_UPLOAD(ScriptedH2cOrigin.Refusal.REFUSED_STREAM, false, true);

        final ScriptedH2cOrigin.Refusal refusal;
        final boolean fallback;
        /** The origin refuses at the body's first byte, the client holding the rest (a raw HTTP/1.1 client). */
        final boolean midUpload;

        Cell(ScriptedH2cOrigin.Refusal refusal, boolean fallback) {
            this(refusal, fallback, false);
        }

        Cell(ScriptedH2cOrigin.Refusal refusal, boolean fallback, boolean midUpload) {
            this.refusal = refusal;
            this.fallback = fallback;
            this.midUpload = midUpload;
        }

        boolean h2() {
            return refusal != null;
        }
    }

    /**
     * Route {@code main} (the cell's origin) and route {@code other} (a refused dial) share the breaker {@code shared}:
     * two failures in a window of two open it. The test opens it while {@code main}'s call holds its permit: over h1
     * while the call reads the client's body (held by the test), over h2 while the origin holds its refusal. (A first
     * version opened it during a 2 s, then 4 s, back-off after the refused dial: at load 10-20 {@code other}'s two
     * requests sometimes took longer and the retry dialled.)
     */
    private static String yaml(Cell cell) {
        String breaker = "{ name: shared, sliding-window: 2, minimum-calls: 2, failure-rate-threshold: 50, "
                + "wait-in-open: 30s" + (cell.fallback ? ", fallbackUri: \"forward:/fallback\"" : "") + " }";
        return """
                server:
                  address: 127.0.0.1
                  port: 0
                admin:
                  port: ${ADMIN_PORT}
                access-log:
                  enabled: true
                  format: json
                routes:
                  - id: main
                    uri: ${MAIN}
                    timeout: 20s
                    predicates: [ "Path=/main/**" ]
                    filters:
                      - name: RequestRateLimiter
                        args: { replenish-rate: 1000, burst-capacity: 1000, key-resolver: route }
                %s      - name: Retry
                        args: { retries: 2, methods: "GET,POST", backoff: { firstBackoff: 10ms, maxBackoff: 10ms } }
                      - name: CircuitBreaker
                        args: %s
                  - id: other
                    uri: http://127.0.0.1:${DEAD}
                    predicates: [ "Path=/other/**" ]
                    filters:
                      - name: CircuitBreaker
                        args: %s
                  - id: fallback
                    uri: ${FALLBACK}
                    predicates: [ "Path=/fallback" ]
                    filters:
                      - FallbackHeaders
                """.formatted(cell.h2() && !cell.fallback ? "" : "      - CacheRequestBody\n", breaker, breaker);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Cell.class)
    void aRetryDueAfterTheBreakerOpenedIsNotSent(Cell cell) throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        AppenderBase<ILoggingEvent> capture = capture(lines);
        Logger accessLog = (Logger) LoggerFactory.getLogger(AccessLog.LOGGER);
        accessLog.addAppender(capture);
        int dead = FreePorts.refused();
        CountDownLatch gate = new CountDownLatch(1);
        try (ScriptedH2cOrigin h2 = new ScriptedH2cOrigin();
             TestOrigin fallback = new TestOrigin();
             ServedGateway gw = RunningGateway.servedWithAdmin(yaml(cell), "breaker-before-retry.yaml",
                     Map.of("MAIN", cell.h2() ? h2.uri() : "http://127.0.0.1:" + dead, "DEAD", Integer.toString(dead),
                             "FALLBACK", fallback.uri()))) {
            fallback.fallback(r -> Reply.ok("fallback"));
            h2.refusal = cell.refusal == null ? ScriptedH2cOrigin.Refusal.NONE : cell.refusal;
            h2.refusals.set(1);
            h2.refusalGate = gate;
            h2.refuseAtBytes = cell.midUpload ? 1 : 0;
            Main main = cell.h2() && !cell.midUpload ? Main.h2(gw) : Main.h1(gw);
            // the call holds its permit: its limiter let it through and it waits for its body (h1), or its stream is
            // held by the origin (h2)
            await(cell.h2() ? () -> h2.refusalsHeld.get() == 1
                    : () -> scrape(gw).toString().contains("loomgate_ratelimit_requests_total{outcome=\"allowed\","
                            + "route=\"main\"} 1.0"), "main's call under way");
            assertThat(connectFailures(gw, dead)).as("no dial yet").isZero();
            for (int i = 0; i < 2; i++) { // two failures of the shared breaker: it opens
                assertThat(get(gw, "/other/" + i).statusCode()).isEqualTo(cell.fallback ? 200 : 502);
            }
            assertThat(scrape(gw).value("loomgate_circuit_breaker_state", "breaker=shared")).as("open").isEqualTo(2);
            gate.countDown(); // the origin refuses the stream now
            if (!cell.midUpload) {
                main.finishBody(); // h1: the rest of the body; the dial is refused, the retry due at once
            }

            Answer r = main.response(cell.midUpload);
            if (cell.midUpload) { // the rest of its body can never be read: closed at once, not after the 5 s drain
                assertThat(r.toClose()).as("from the 503 to the close (session 61: 5 s)").isLessThan(
                        Duration.ofSeconds(3));
            }
            if (cell.fallback) {
                assertThat(r.status()).as(r.body()).isEqualTo(200);
                assertThat(r.body()).isEqualTo("fallback");
                TestOrigin.Recorded got = fallback.received().getLast();
                assertThat(got.header("Execution-Exception-Type")).as("the breaker's refusal, as at a call's start")
                        .isEqualTo("io.github.resilience4j.circuitbreaker.CallNotPermittedException");
                assertThat(new String(got.body(), StandardCharsets.UTF_8)).isEqualTo(BODY);
            } else {
                assertThat(r.status()).isEqualTo(503);
                assertThat(r.retryAfter()).isEqualTo("30");
                assertThat(r.body()).contains("circuit breaker is open");
            }
            if (cell.h2()) {
                ScriptedH2cOrigin.Conn c = h2.connections().getFirst();
                assertThat(c.refused).as("the one stream, refused").hasSize(1);
                assertThat(h2.connections().stream().mapToInt(x -> x.uploads.size()).sum()).as("no retry reached it")
                        .isEqualTo(1);
            } else {
                assertThat(connectFailures(gw, dead)).as("other's two dials and main's one: no retry dialled")
                        .isEqualTo(3);
            }
            await(() -> lines.stream().anyMatch(l -> l.contains("/main/x")), "main's access line");
            List<String> ours = lines.stream().filter(l -> l.contains("/main/x")).toList();
            assertThat(ours).as("one access line").hasSize(1);
            PrometheusText s = scrape(gw);
            if (!cell.fallback) {
                assertThat(ours.getFirst()).contains("\"http.response.status_code\":503,")
                        .contains("\"loomgate.failure\":\"circuit_open\"");
                assertThat(s.value("loomgate_exchange_failures_total", "route=main", "kind=circuit_open"))
                        .isEqualTo(1);
            }
            assertThat(s.value("loomgate_retries_total", "route=main", "outcome=circuit_open"))
                    .as("the retry not sent, and why").isEqualTo(1);
            assertThat(s.toString().lines().filter(l -> l.startsWith("loomgate_retries_total{")
                    && l.contains("route=\"main\"") && l.contains("outcome=\"retried\""))).as("no retry counted as made")
                    .isEmpty();
        } finally {
            gate.countDown();
            accessLog.detachAppender(capture);
        }
    }

    /**
     * Main's POST: over h1 its head and the first byte of its body, the rest when the test says (so the call waits
     * inside the breaker for it); over h2 all of it at once.
     */
    private record Main(CompletableFuture<HttpResponse<String>> sent, RawClient raw) {
        static Main h2(ServedGateway gw) {
            return new Main(CLIENT.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gw.port()
                    + "/main/x")).timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(BODY))
                    .build(), HttpResponse.BodyHandlers.ofString()), null);
        }

        static Main h1(ServedGateway gw) throws Exception {
            RawClient raw = new RawClient(gw.port());
            raw.send("POST /main/x HTTP/1.1\r\nHost: t\r\nContent-Length: " + BODY.length() + "\r\n\r\n"
                    + BODY.charAt(0));
            return new Main(null, raw);
        }

        void finishBody() throws Exception {
            if (raw != null) {
                raw.send(BODY.substring(1));
            }
        }

        /**
         * The answer, as far as the cells look at it; with {@code askClosed} (the raw client) also the time from the
         * answer to the connection's close, read to its end (10 s at most), else null.
         */
        Answer response(boolean askClosed) throws Exception {
            if (sent != null) {
                HttpResponse<String> r = sent.get(30, TimeUnit.SECONDS);
                return new Answer(r.statusCode(), r.headers().firstValue("Retry-After").orElse(null), r.body(), null);
            }
            try (raw) {
                RawClient.Response r = raw.read();
                Duration toClose = null;
                if (askClosed) {
                    long answered = System.nanoTime();
                    raw.socket().setSoTimeout(10_000);
                    assertThat(raw.socket().getInputStream().read()).as("closed after the answer").isEqualTo(-1);
                    toClose = Duration.ofNanos(System.nanoTime() - answered);
                }
                return new Answer(r.status(), r.header("Retry-After"), r.bodyText(), toClose);
            }
        }
    }

    private record Answer(int status, String retryAfter, String body, Duration toClose) {
    }

    private static HttpResponse<String> get(ServedGateway gw, String path) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gw.port() + path))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static double connectFailures(ServedGateway gw, int port) {
        PrometheusText s = scrape(gw); // the endpoint's series comes with its first failed dial
        return s.toString().lines().anyMatch(l -> l.startsWith("loomgate_upstream_connect_failures_total{")
                && l.contains("endpoint=\"127.0.0.1:" + port + "\""))
                ? s.value("loomgate_upstream_connect_failures_total", "endpoint=127.0.0.1:" + port) : 0;
    }

    private static PrometheusText scrape(ServedGateway gw) {
        try {
            return new PrometheusText(CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + gw.adminPort() + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString()).body());
        } catch (Exception e) {
            throw new AssertionError("scraping /metrics failed", e);
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("not within 10 s: %s", what).isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    /** An appender, started, that adds each event's message to {@code lines}. */
    private static AppenderBase<ILoggingEvent> capture(List<String> lines) {
        AppenderBase<ILoggingEvent> capture = new AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent e) {
                lines.add(e.getFormattedMessage());
            }
        };
        capture.start();
        return capture;
    }
}
