package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import io.loomgate.cli.ServedGateway;
import io.loomgate.config.Plugins;
import io.loomgate.filter.FilterFactory;
import io.loomgate.filter.GatewayFilter;
import io.loomgate.it.MatrixClient.Outcome;
import io.loomgate.it.MatrixClient.Send;
import io.loomgate.it.MatrixClient.Shape;
import io.loomgate.observe.AccessLog;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestPki;
import io.loomgate.upstream.UpstreamPool;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.slf4j.LoggerFactory;

/**
 * Correct in every combination (issue 34): every downstream protocol × upstream protocol × body shape × route
 * feature, through gateways that have every observer on at once (admin and metrics, JSON access log), with real
 * sockets, real TLS (both providers), curl for HTTP/2. Each cell checks the bytes both ways (SHA-256 at the origin
 * and at the client), the status a user would expect, a time bound for the big bodies, its access-log line, and at
 * the end /metrics is compared with the requests sent, per route.
 *
 * <p>The cells come from the four enums below, one line per kind: a new listener kind, upstream, body shape or route
 * feature is one more line, and {@link Body#notApplicable} says why a combination is left out.
 *
 * <p>{@value #BOUND_PROPERTY} overrides the time bound (seconds) on a loaded machine; CI uses the constant.
 */
class TrafficMatrixTest {
    /**
     * An 8 MiB body crosses the gateway (both ways) within this in every cell without slowness. It catches a crawl
     * (issue 34's HTTPS upload took 8 s per MB, and epoll's relay read a byte at a time), not a speed: a quiet machine
     * takes well under 3 s, but CI's, with a Go build beside the suite, took 5.5 s for one cell, and 4.5-11 s were seen
     * at a load of 33.
     */
    static final Duration BIG_BODY_BOUND = Duration.ofSeconds(20);
    static final String BOUND_PROPERTY = "loomgate.matrix.big-body-seconds";
    /** Runs only the cells whose name contains this (while developing: {@code -Dloomgate.matrix.only=h2c →}). */
    static final String ONLY_PROPERTY = "loomgate.matrix.only";
    /**
     * {@code all}: on another transport every cell runs, the routes with a feature too (the whole matrix once on epoll,
     * as session 47 ran it); by default only the plain route's and the early answers' cells run there.
     */
    static final String CELLS_PROPERTY = "loomgate.matrix.cells";
    /** How often each early-answer cell sends its upload (the reset it guards against did not come every time). */
    static final int EARLY_REPEATS = 5;

    // ---------------------------------------------------------------- the table

    /**
     * The gateway a downstream kind talks to: one per TLS setting, each serving HTTP/1.1 and HTTP/2 on one port. The
     * provider is the listener's and the https origins' ({@code upstream.ssl.provider}): the Conscrypt gateway's
     * https and h2-over-TLS upstreams run on Conscrypt's engine, the others' on JSSE.
     */
    enum Gateway {
        PLAIN(null), TLS_JDK("jdk"), TLS_CONSCRYPT("conscrypt");

        final String provider;

        Gateway(String provider) {
            this.provider = provider;
        }
    }

    /** How the client reaches the gateway. */
    enum Downstream {
        H1("h1", Gateway.PLAIN, false),
        H1_TLS_JDK("h1+tls(jdk)", Gateway.TLS_JDK, false),
        H1_TLS_CONSCRYPT("h1+tls(conscrypt)", Gateway.TLS_CONSCRYPT, false),
        H2C("h2c", Gateway.PLAIN, true),
        H2_TLS_JDK("h2+tls(jdk)", Gateway.TLS_JDK, true),
        H2_TLS_CONSCRYPT("h2+tls(conscrypt)", Gateway.TLS_CONSCRYPT, true);

        final String label;
        final Gateway gateway;
        final boolean http2;

        Downstream(String label, Gateway gateway, boolean http2) {
            this.label = label;
            this.gateway = gateway;
            this.http2 = http2;
        }
    }

    /** How the gateway reaches the origin; {@code faulty} upstreams fail every exchange (expected: 502). */
    enum Upstream {
        HTTP("http", "http://127.0.0.1:%d", false),
        HTTPS("https", "https://localhost:%d", false),
        H2C("h2c", "h2c://127.0.0.1:%d", false),
        H2_TLS("h2", "https://localhost:%d", false),
        /** an https origin whose certificate no trusted CA signed: the handshake fails */
        UNTRUSTED("https-untrusted", "https://localhost:%d", true);

        final String label;
        final String uri;
        final boolean faulty;

        Upstream(String label, String uri, boolean faulty) {
            this.label = label;
            this.uri = uri;
            this.faulty = faulty;
        }
    }

    /** The route's feature (admin, metrics and the JSON access log are on for every route of every gateway). */
    enum Feature {
        PLAIN("plain", ""),
        /** the origin answers every id's first try 503 before reading the body: the body must be replayed */
        RETRY("retry", """
                    filters:
                      - name: Retry
                        args:
                          retries: 1
                          methods: GET,POST
                          series: SERVER_ERROR
                          exceptions: IOException
                          backoff: { firstBackoff: 1ms, maxBackoff: 5ms }
                          max-replay-size: 16MB
                          budget-percent: 1000
                          min-retries-per-second: 100000
                """),
        /**
         * one request per key per minute (a request costs the whole bucket of 60 tokens, refilled at 1 a second: a
         * second request a loaded machine sends 1.5 s later is still over), keyed by the cell's X-Matrix-Key: only the
         * over-limit cell goes over it
         */
        RATE_LIMIT("ratelimit", """
                    filters:
                      - name: RequestRateLimiter
                        args:
                          replenish-rate: 1
                          burst-capacity: 60
                          requested-tokens: 60
                          key-resolver: header:X-Matrix-Key
                          deny-empty-key: false
                """),
        /** a body over 1 MiB is answered 413 before the rest of it is read (CacheRequestBody's bound) */
        BOUNDED("bounded", """
                    filters:
                      - name: CacheRequestBody
                        args: { max-size: 1MB }
                """),
        /** the cells send no API key: 401 before a byte of the body is read */
        KEYED("keyed", """
                    filters:
                      - name: ApiKeyAuth
                        args: { keys: { nobody: "sha256:%s" } }
                """.formatted("0".repeat(64))),
        /**
         * a plugin's filter ({@link AnswerAs}) turns the origin's answer into the status the query names (204, 304)
         * after it came: the origin's body is dropped, never the client's (session 52's dropped bodies)
         */
        DROP("drop", """
                    filters:
                      - name: %s
                """.formatted(AnswerAs.NAME));

        final String label;
        final String filters;

        Feature(String label, String filters) {
            this.label = label;
            this.filters = filters;
        }
    }

    /** What the client should see. */
    enum Expect {
        /** 200, the body echoed whole */
        OK,
        /** 200, then a body that ends short in a way the client can tell (short content-length, no last chunk, reset) */
        TRUNCATED,
        /** 502: an upstream fault, never a 500 */
        BAD_GATEWAY,
        /** the client is gone: nothing to see; the origin must not get a body that looks complete */
        CLIENT_GONE,
        /** 429 once the key's one token is spent */
        LIMITED,
        /**
         * the route's early answer (413 over the bound, 401 without a key), whole, although the client wrote its whole
         * upload before it read; the origin gets no call
         */
        EARLY,
        /**
         * the status the plugin made (204 or 304) without a body, at once; the next request through the route gets
         * its own answer, on the origin's same connection when the dropped body was drained (small) or the origin is
         * HTTP/2 (the stream reset), on a new one when it was closed (HTTP/1.1, large or endless); an endless answer
         * ends at the origin
         */
        DROPPED
    }

    /**
     * The body shapes. "Chunked" is an HTTP/1.1 framing; for an HTTP/2 client the same row sends DATA frames with no
     * content-length (HTTP/2's "length unknown"), which is what becomes chunked on an HTTP/1.1 upstream: the row
     * applies to every downstream, so no cell is left out for it.
     */
    enum Body {
        NONE("no body", "GET", "down", 0, false, Shape.WHOLE, Expect.OK, false),
        ONE_BYTE("1 B", "POST", "echo", 1, false, Shape.WHOLE, Expect.OK, false),
        KIB_64("64 KiB", "POST", "echo", 64 * 1024, false, Shape.WHOLE, Expect.OK, false),
        MIB_8_LENGTH("8 MiB content-length", "POST", "echo", 8 * MatrixBodies.MIB, false, Shape.WHOLE, Expect.OK, true),
        MIB_8_CHUNKED("8 MiB chunked", "POST", "echo", 8 * MatrixBodies.MIB, true, Shape.WHOLE, Expect.OK, true),
        DUPLEX_ECHO("full-duplex echo", "POST", "stream", 256 * 1024, true, Shape.DUPLEX, Expect.OK, false),
        SLOW_DRIP("slow drip", "POST", "echo", MatrixClient.DRIP_PIECES * MatrixClient.DRIP_PIECE, false, Shape.DRIP,
                Expect.OK, false),
        CLIENT_ABORT("client aborts mid-body", "POST", "echo", MatrixBodies.MIB, false, Shape.ABORT,
                Expect.CLIENT_GONE, false),
        ORIGIN_ABORT("origin aborts mid-body", "POST", "truncate", 64 * 1024, false, Shape.WHOLE, Expect.TRUNCATED,
                false),
        ORIGIN_RESET("origin closes before answering", "POST", "reset", 64 * 1024, false, Shape.WHOLE,
                Expect.BAD_GATEWAY, false),
        OVER_RATE_LIMIT("over the rate limit", "GET", "down", 0, false, Shape.WHOLE, Expect.LIMITED, false),
        /**
         * 8 MiB uploads written whole before the response is read, on one key: the first goes through, a later one is
         * answered 429 early (the limit is decided before a byte of the body is read)
         */
        UPLOAD_OVER_RATE_LIMIT("8 MiB uploads over the rate limit, answered early", "POST", "down", 8 * MatrixBodies.MIB,
                false, Shape.WRITE_FIRST, Expect.LIMITED, false),
        EARLY_LENGTH("8 MiB content-length, answered early", "POST", "echo", 8 * MatrixBodies.MIB, false,
                Shape.WRITE_FIRST, Expect.EARLY, false),
        EARLY_CHUNKED("8 MiB chunked, answered early", "POST", "echo", 8 * MatrixBodies.MIB, true, Shape.WRITE_FIRST,
                Expect.EARLY, false),
        /** The origin's answers a plugin's 204/304 drops: drained whole (at most 64 KiB), or not read and closed. */
        DROP_FIXED("40 KiB answer dropped by 204", "GET", "fixed-40960", 0, false, Shape.WHOLE, Expect.DROPPED, false),
        DROP_CHUNKED("40 KiB chunked answer dropped by 304", "GET", "chunked-40960", 0, false, Shape.WHOLE,
                Expect.DROPPED, false),
        DROP_MIB("1 MiB answer dropped by 204", "GET", "fixed-" + MatrixBodies.MIB, 0, false, Shape.WHOLE,
                Expect.DROPPED, false),
        DROP_ENDLESS("endless answer dropped by 304", "GET", "endless", 0, false, Shape.WHOLE, Expect.DROPPED, false);

        final String label;
        final String method;
        final String op;
        final int length;
        final boolean chunked;
        final Shape shape;
        final Expect expect;
        /** moves 8 MiB with no deliberate slowness: the time bound applies, and it runs in the one-at-a-time lane */
        final boolean big;

        Body(String label, String method, String op, int length, boolean chunked, Shape shape, Expect expect,
             boolean big) {
            this.label = label;
            this.method = method;
            this.op = op;
            this.length = length;
            this.chunked = chunked;
            this.shape = shape;
            this.expect = expect;
            this.big = big;
        }

        /** The status the plugin turns the origin's answer into (a dropped-body row). */
        int dropStatus() {
            return this == DROP_FIXED || this == DROP_MIB ? 204 : 304;
        }

        /** Whether the gateway reads a dropped body to its end and keeps an HTTP/1.1 connection (at most 64 KiB). */
        boolean drained() {
            return this == DROP_FIXED || this == DROP_CHUNKED;
        }

        /** Why this body shape has no cell with that upstream and feature; null when it applies. */
        String notApplicable(Downstream down, Upstream up, Feature feature) {
            if (expect == Expect.DROPPED != (feature == Feature.DROP)) {
                return "the route that drops answers (drop) takes only the dropped-answer cells";
            }
            if (expect == Expect.DROPPED && up.faulty) {
                return "the handshake with the origin fails before any answer: nothing to drop";
            }
            boolean earlyRoute = feature == Feature.BOUNDED || feature == Feature.KEYED;
            if (expect == Expect.EARLY && !earlyRoute) {
                return "only the routes that answer early (bounded, keyed) get the early-answer uploads";
            }
            if (expect != Expect.EARLY && earlyRoute) {
                return "the routes that answer early take only the early-answer uploads";
            }
            if (expect == Expect.EARLY && up != Upstream.HTTP) {
                return "answered before any upstream is called: one upstream is enough";
            }
            if ((this == OVER_RATE_LIMIT || this == UPLOAD_OVER_RATE_LIMIT) && feature != Feature.RATE_LIMIT) {
                return "only the rate-limited route has a limit to go over";
            }
            if (this == UPLOAD_OVER_RATE_LIMIT && up != Upstream.HTTP) {
                return "the 429 is decided before any upstream is called: one upstream is enough";
            }
            if (up.faulty && this != NONE && this != KIB_64 && this != OVER_RATE_LIMIT) {
                return "the handshake with the origin fails before a body byte moves: other shapes add nothing";
            }
            return null;
        }
    }

    /**
     * Cells that fail today for a defect being fixed: reported as skipped with the defect (the lead or the fixing
     * branch runs them with {@code -D}{@value #KNOWN_PROPERTY}{@code =run}; then a passing one means "delete its line").
     */
    record Known(String why, java.util.function.Predicate<Cell> applies) {
    }

    static final String KNOWN_PROPERTY = "loomgate.matrix.known";

    static final List<Known> KNOWN = List.of();

    /** One combination. */
    record Cell(Downstream down, Upstream up, Body body, Feature feature) {
        String name() {
            return down.label + " → " + up.label + " | " + body.label + " | " + feature.label;
        }

        String route() {
            return up.label + "-" + feature.label;
        }

        /** Full duplex from an HTTP/2 client: only the hyper-h2 script does it (curl and the JDK's client cannot). */
        boolean needsPyH2() {
            return body.shape == Shape.DUPLEX && down.http2;
        }

        Expect expect() {
            if (up.faulty && body != Body.OVER_RATE_LIMIT) {
                return Expect.BAD_GATEWAY;
            }
            return body.expect;
        }
    }

    /**
     * A plugin's filter, as a team's jar would register it ({@link Plugins}): after the origin answered, the status the
     * request's query names ({@code ?as=204}) replaces the origin's, whose body the client then does not get.
     */
    static final class AnswerAs implements FilterFactory {
        static final String NAME = "MatrixAnswerAs";

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public List<String> argNames() {
            return List.of();
        }

        @Override
        public GatewayFilter create(Map<String, String> args) {
            return (exchange, chain) -> {
                chain.proceed(exchange);
                String query = exchange.request().query();
                if (query != null && query.startsWith("as=")) {
                    exchange.setResponse(exchange.response().withStatus(Integer.parseInt(query.substring(3))));
                }
            };
        }
    }

    // ---------------------------------------------------------------- the environment, shared by every cell

    private static final HttpClient ADMIN = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final Pattern PATH = Pattern.compile("\"url\\.path\":\"([^\"]*)\"");
    private static final AtomicInteger IDS = new AtomicInteger();

    private static Path dir;
    private static TestPki pki;
    private static final Map<Upstream, MatrixOrigin> origins = new EnumMap<>(Upstream.class);
    /**
     * The drop route's origins, one per kind as above: a gateway has one pool per endpoint, shared by every route
     * that names it, so the drop route gets endpoints of its own, whose pools only its cells (one at a time) use.
     */
    private static final Map<Upstream, MatrixOrigin> dropOrigins = new EnumMap<>(Upstream.class);
    private static final Map<Gateway, ServedGateway> gateways = new EnumMap<>(Gateway.class);
    private static final Map<Downstream, MatrixClient> clients = new EnumMap<>(Downstream.class);
    /** The full-duplex clients of the HTTP/2 downstreams; empty when no python3 here imports h2. */
    private static final Map<Downstream, MatrixClient> duplexClients = new EnumMap<>(Downstream.class);
    /** Access-log lines by request id (the last path segment). */
    private static final Map<String, List<String>> accessLines = new ConcurrentHashMap<>();
    /** Requests sent, by gateway and route. */
    private static final Map<Gateway, Map<String, AtomicInteger>> sent = new EnumMap<>(Gateway.class);
    private static AppenderBase<ILoggingEvent> capture;

    @BeforeAll
    static void start() throws Exception {
        TestPki.requireTool("curl", "--version");
        dir = Files.createTempDirectory("loomgate-matrix-");
        pki = TestPki.create("matrix CA");
        TestPki.Issued gatewayCert = pki.issue("gateway", "localhost", "localhost");
        TestPki.Issued originCert = pki.issue("origin", "localhost", "localhost");
        TestPki rogue = TestPki.create("rogue CA");
        TestPki.Issued rogueCert = rogue.issue("rogue", "localhost", "localhost");

        MatrixOrigin plain = MatrixOrigin.plain();
        origins.put(Upstream.HTTP, plain);
        origins.put(Upstream.H2C, plain);
        origins.put(Upstream.HTTPS, MatrixOrigin.tls(originCert, List.of("http/1.1")));
        origins.put(Upstream.H2_TLS, MatrixOrigin.tls(originCert, List.of("h2", "http/1.1")));
        origins.put(Upstream.UNTRUSTED, MatrixOrigin.tls(rogueCert, List.of("h2", "http/1.1")));
        MatrixOrigin plainDrops = MatrixOrigin.plain();
        dropOrigins.put(Upstream.HTTP, plainDrops);
        dropOrigins.put(Upstream.H2C, plainDrops);
        dropOrigins.put(Upstream.HTTPS, MatrixOrigin.tls(originCert, List.of("http/1.1")));
        dropOrigins.put(Upstream.H2_TLS, MatrixOrigin.tls(originCert, List.of("h2", "http/1.1")));

        capture = new AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent e) {
                for (String line : e.getFormattedMessage().split("\n")) {
                    Matcher m = PATH.matcher(line);
                    if (m.find()) {
                        String path = m.group(1);
                        String id = path.substring(path.lastIndexOf('/') + 1);
                        accessLines.computeIfAbsent(id, k -> new java.util.concurrent.CopyOnWriteArrayList<>())
                                .add(line);
                    }
                }
            }
        };
        capture.start();
        ((Logger) LoggerFactory.getLogger(AccessLog.LOGGER)).addAppender(capture);

        for (Gateway g : Gateway.values()) {
            // on the transport asked, the listener and the connections to origins both
            gateways.put(g, RunningGateway.servedWithAdmin(config(g, gatewayCert), "matrix.yaml", Map.of(),
                    Plugins.of(List.of(new AnswerAs()), List.of())));
            sent.put(g, new ConcurrentHashMap<>());
        }
        Path bodies = MatrixClient.Curl.writeBodies(dir, 1, 64 * 1024, 8 * MatrixBodies.MIB, MatrixBodies.MIB);
        for (Downstream d : Downstream.values()) {
            int port = gateways.get(d.gateway).port();
            boolean tls = d.gateway.provider != null;
            clients.put(d, d.http2 ? new MatrixClient.Curl(port, tls ? pki.caCert() : null, bodies)
                    : new MatrixClient.H1(port, tls ? pki.clientContext(null) : null));
        }
        String python = MatrixClient.PyH2.findPython();
        if (python != null) {
            Path script = MatrixClient.PyH2.copyScript(dir);
            for (Downstream d : Downstream.values()) {
                if (d.http2) {
                    duplexClients.put(d, new MatrixClient.PyH2(gateways.get(d.gateway).port(),
                            d.gateway.provider != null ? pki.caCert() : null, python, script));
                }
            }
        }
    }

    private static String config(Gateway g, TestPki.Issued cert) {
        StringBuilder y = new StringBuilder("server:\n  address: 127.0.0.1\n  port: 0\n");
        if (g.provider != null) {
            y.append("  ssl:\n    provider: ").append(g.provider)
                    .append("\n    certificate: ").append(cert.cert())
                    .append("\n    certificate-private-key: ").append(cert.key()).append('\n');
        }
        y.append("admin:\n  port: ${ADMIN_PORT}\naccess-log:\n  enabled: true\n  format: json\n");
        // connect-timeout: no cell is about the dial's budget, and the origins and gateways share this JVM: at load
        // ~25 (session 51's run 4) it got no CPU for seconds, and a new dial to the https origin ran out of the
        // default 2 s (502 connect_timeout in a retry cell). The untrusted origin's cells fail by the handshake.
        y.append("upstream:\n  http2: true\n  connect-timeout: 10s\n  ssl:\n    trust-certificate: ")
                .append(pki.caCert()).append('\n');
        y.append("    provider: ").append(g.provider != null ? g.provider : "jdk").append('\n');
        y.append("routes:\n");
        for (Upstream up : Upstream.values()) {
            for (Feature f : Feature.values()) {
                y.append("  - id: ").append(up.label).append('-').append(f.label).append('\n')
                        .append("    uri: ").append(up.uri.formatted(originOf(up, f).port())).append('\n')
                        .append("    predicates: [ \"Path=/").append(up.label).append('/').append(f.label)
                        .append("/**\" ]\n")
                        .append(f.filters);
            }
        }
        return y.toString();
    }

    /** The origin a route of this upstream kind and feature names. */
    private static MatrixOrigin originOf(Upstream up, Feature feature) {
        return feature == Feature.DROP ? dropOrigins.getOrDefault(up, origins.get(up)) : origins.get(up);
    }

    @AfterAll
    static void stop() {
        gateways.values().forEach(ServedGateway::close);
        origins.values().stream().distinct().forEach(MatrixOrigin::close);
        dropOrigins.values().stream().distinct().forEach(MatrixOrigin::close);
        if (capture != null) {
            ((Logger) LoggerFactory.getLogger(AccessLog.LOGGER)).detachAppender(capture);
        }
    }

    // ---------------------------------------------------------------- the cells

    @TestFactory
    Stream<DynamicNode> matrix() {
        Duration bound = Duration.ofSeconds(Long.getLong(BOUND_PROPERTY, BIG_BODY_BOUND.toSeconds()));
        // Big bodies one at a time (the time bound is theirs); the others four at a time beside them.
        ExecutorService big = Executors.newFixedThreadPool(1);
        ExecutorService small = Executors.newFixedThreadPool(4);
        List<DynamicNode> nodes = new ArrayList<>();
        long t0 = System.nanoTime();
        List<Future<?>> all = new ArrayList<>();
        // The dropped-answer cells of one route of one gateway one after another, in the small lane: each checks which
        // origin connection the next request took, which another cell's request on that pool would blur (the drop
        // routes' origins are their own, so their pools are theirs: a gateway has one pool per endpoint).
        Map<String, CompletableFuture<Void>> poolTurns = new HashMap<>();
        // On another transport (the build's epoll run) only the plain route's cells: every listener, upstream and
        // body shape crosses the sockets under test there, while a route's feature (Retry, the rate limit) is the
        // same code over either transport, and its cells, two thirds of the matrix, run in the default run.
        String transport = System.getProperty(RunningGateway.TRANSPORT_PROPERTY, "");
        boolean onAnotherTransport = !transport.isBlank() && !transport.equals("jdk")
                && !"all".equals(System.getProperty(CELLS_PROPERTY));
        int featureCellsLeftOut = 0;
        for (Downstream down : Downstream.values()) {
            List<DynamicNode> row = new ArrayList<>();
            // Combinations that do not apply are counted, one line per listener, not listed as skipped cells:
            // most are an early-answer route crossed with the shapes it does not take, which would bury the
            // suite's real skips under a thousand.
            Map<String, Integer> notApplicable = new TreeMap<>();
            for (Upstream up : Upstream.values()) {
                for (Body body : Body.values()) {
                    for (Feature feature : Feature.values()) {
                        Cell cell = new Cell(down, up, body, feature);
                        if (!cell.name().contains(System.getProperty(ONLY_PROPERTY, ""))) {
                            continue;
                        }
                        String why = body.notApplicable(down, up, feature);
                        // The early-answer and dropped-answer cells run there too: how a connection ends, and what
                        // an origin connection holds when it goes back to the pool, is the transport's business.
                        if (feature != Feature.PLAIN && feature != Feature.DROP && body.expect != Expect.EARLY
                                && onAnotherTransport) {
                            featureCellsLeftOut += why == null ? 1 : 0;
                            continue;
                        }
                        if (why != null) {
                            notApplicable.merge(why, 1, Integer::sum);
                            continue;
                        }
                        String known = KNOWN.stream().filter(k -> k.applies().test(cell)).map(Known::why)
                                .findFirst().orElse(null);
                        if (known != null && !"run".equals(System.getProperty(KNOWN_PROPERTY))) {
                            row.add(DynamicTest.dynamicTest(cell.name(),
                                    () -> Assumptions.abort("known defect: " + known)));
                            continue;
                        }
                        if (cell.needsPyH2() && !duplexClients.containsKey(down)) {
                            // like TestPki.requireTool: a failure under CI, a skip with the reason elsewhere
                            row.add(DynamicTest.dynamicTest(cell.name(), () -> {
                                if ("true".equals(System.getenv("CI"))) {
                                    org.junit.jupiter.api.Assertions.fail(MatrixClient.PyH2.MISSING);
                                }
                                Assumptions.abort(MatrixClient.PyH2.MISSING + ": skipping");
                            }));
                            continue;
                        }
                        java.util.concurrent.Callable<Void> task = () -> {
                            try {
                                run(cell, bound);
                            } catch (AssertionError | Exception e) {
                                // Surefire's report names dynamic tests by index: the cell's name goes in the message
                                throw new AssertionError(cell.name() + ": " + e.getMessage(), e);
                            }
                            return null;
                        };
                        Future<?> f;
                        if (body.expect == Expect.DROPPED) {
                            CompletableFuture<Void> turn = poolTurns.getOrDefault(down.gateway + " " + cell.route(),
                                    CompletableFuture.completedFuture(null)).handle((v, e) -> (Void) null)
                                    .thenApplyAsync(v -> {
                                        try {
                                            return task.call();
                                        } catch (Exception e) {
                                            throw new java.util.concurrent.CompletionException(e);
                                        }
                                    }, small);
                            poolTurns.put(down.gateway + " " + cell.route(), turn);
                            f = turn;
                        } else {
                            f = (body.big ? big : small).submit(task);
                        }
                        all.add(f);
                        row.add(DynamicTest.dynamicTest(cell.name(), () -> join(f)));
                    }
                }
            }
            if (!notApplicable.isEmpty()) {
                int count = notApplicable.values().stream().mapToInt(Integer::intValue).sum();
                String why = count + " combinations not applicable: " + notApplicable;
                row.add(DynamicTest.dynamicTest("not applicable on " + down.label, () -> Assumptions.abort(why)));
            }
            nodes.add(DynamicContainer.dynamicContainer(down.label, row));
        }
        if (featureCellsLeftOut > 0) {
            String why = featureCellsLeftOut + " cells of the routes with a feature (retry, ratelimit) run on the "
                    + "default transport only, not on " + transport + ": the features are the same code over either";
            nodes.add(DynamicTest.dynamicTest("route features on " + transport, () -> Assumptions.abort(why)));
        }
        List<DynamicNode> totals = new ArrayList<>();
        for (Gateway g : Gateway.values()) {
            totals.add(DynamicTest.dynamicTest("/metrics counts every request sent, per route (" + g + ")", () -> {
                awaitAll(all);
                metricsAddUp(g);
            }));
        }
        totals.add(DynamicTest.dynamicTest("exactly one access-log line per exchange", () -> {
            awaitAll(all);
            Thread.sleep(200); // two access-log writer naps: a duplicate line would be written by now
            accessLines.forEach((id, lines) -> assertThat(lines).as("access-log lines of %s", id).hasSize(1));
            io.loomgate.testkit.EcsSchema.assertValid(accessLines.values().stream().flatMap(List::stream).toList());
            big.shutdown();
            small.shutdown();
            System.out.printf("traffic matrix: %d cells ran in %d ms%n", all.size(),
                    (System.nanoTime() - t0) / 1_000_000);
        }));
        nodes.add(DynamicContainer.dynamicContainer("totals", totals));
        return nodes.stream();
    }

    /** Waits for every cell to end, whatever its verdict (each cell reports its own). */
    private static void awaitAll(List<Future<?>> all) throws InterruptedException {
        for (Future<?> f : all) {
            try {
                f.get(10, TimeUnit.MINUTES);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                // reported by the cell's own test
            }
        }
    }

    private static void join(Future<?> f) throws Throwable {
        try {
            f.get(10, TimeUnit.MINUTES);
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause();
        }
    }

    private static void run(Cell cell, Duration bound) throws Exception {
        MatrixClient client = cell.needsPyH2() ? duplexClients.get(cell.down()) : clients.get(cell.down());
        MatrixOrigin origin = originOf(cell.up(), cell.feature());
        String id = "c" + IDS.incrementAndGet();
        String path = "/" + cell.up().label + "/" + cell.feature().label + "/" + cell.body().op + "/" + id;
        Body b = cell.body();
        Map<String, AtomicInteger> routeCounts = sent.get(cell.down().gateway);

        if (cell.expect() == Expect.LIMITED) {
            List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 5 && !statuses.contains(429); i++) {
                Outcome o = client.exchange(new Send(b.method, path + "-" + i, id, b.length, b.chunked, b.shape));
                routeCounts.computeIfAbsent(cell.route(), k -> new AtomicInteger()).incrementAndGet();
                statuses.add(o.status());
                if (b.shape == Shape.WRITE_FIRST && !cell.down().http2) {
                    assertThat(o.complete()).as("try %d: the upload went out whole and the answer came whole (%s)",
                            i, o).isTrue();
                }
                awaitAccessLine(id + "-" + i);
            }
            assertThat(statuses.get(0)).as("the key's first request").isEqualTo(cell.up().faulty ? 502 : 200);
            assertThat(statuses).as("one request per minute: a second request is refused").contains(429);
            return;
        }

        if (cell.expect() == Expect.DROPPED) {
            dropped(cell, client, origin, path, id);
            return;
        }

        if (cell.expect() == Expect.EARLY) {
            // Several times: the reset that lost the answer before the lingering close came 1 in 3 runs of
            // CacheRequestBodyTest, not every time.
            int want = cell.feature() == Feature.KEYED ? 401 : 413;
            for (int i = 0; i < EARLY_REPEATS; i++) {
                Outcome o = client.exchange(new Send(b.method, path + "-" + i, id, b.length, b.chunked, b.shape));
                routeCounts.computeIfAbsent(cell.route(), k -> new AtomicInteger()).incrementAndGet();
                assertThat(o.status()).as("try %d: the early answer, read after the whole upload was written (%s)", i,
                        o).isEqualTo(want);
                if (!cell.down().http2) {
                    assertThat(o.complete()).as("try %d: the upload went out whole and the answer came whole (%s)",
                            i, o).isTrue();
                }
                assertThat(origin.received(id + "-" + i)).as("try %d: no upstream call", i).isNull();
                awaitAccessLine(id + "-" + i);
            }
            return;
        }

        Outcome o = client.exchange(new Send(b.method, path, id, b.length, b.chunked, b.shape));
        routeCounts.computeIfAbsent(cell.route(), k -> new AtomicInteger()).incrementAndGet();
        MatrixOrigin.Received got = origin.received(id);
        String sentSha = MatrixBodies.sha256(MatrixBodies.DATA, b.length);
        switch (cell.expect()) {
            case OK -> {
                assertThat(o.status()).as("status (%s)", o).isEqualTo(200);
                assertThat(o.complete()).as("the response ended as framed (%s)", o).isTrue();
                assertThat(got).as("what the origin read").isNotNull();
                assertThat(got.bytes()).as("bytes the origin read").isEqualTo(b.length);
                assertThat(got.sha256()).as("SHA-256 of what the origin read").isEqualTo(sentSha);
                assertThat(got.complete()).isTrue();
                int down = b.op.equals("down") ? MatrixBodies.DOWNLOAD : b.length;
                assertThat(o.bytes()).as("bytes the client got back").isEqualTo(down);
                assertThat(o.sha256()).as("SHA-256 of what the client got back")
                        .isEqualTo(MatrixBodies.sha256(MatrixBodies.DATA, down));
                if (cell.feature() == Feature.RETRY) {
                    assertThat(got.tries()).as("the 503 was retried and the body replayed").isEqualTo(2);
                }
                if (b.big) {
                    assertThat(o.took()).as("8 MiB through the gateway (bound: -D%s)", BOUND_PROPERTY)
                            .isLessThan(bound);
                }
            }
            case TRUNCATED -> {
                assertThat(o.status()).as("the head had gone out (%s)", o).isEqualTo(200);
                assertThat(o.complete()).as("a truncated body must not look complete (%s)", o).isFalse();
                assertThat(o.bytes()).isLessThan(b.length);
                assertThat(got.sha256()).as("the origin read the whole request").isEqualTo(sentSha);
            }
            case BAD_GATEWAY -> assertThat(o.status()).as("an upstream fault (%s)", o).isEqualTo(502);
            case CLIENT_GONE -> {
                if (got != null) {
                    awaitOriginDone(origin, id);
                    assertThat(origin.received(id).complete()).as("the origin must see the body end short, not "
                            + "end cleanly (%s)", origin.received(id)).isFalse();
                }
            }
            case LIMITED, EARLY, DROPPED -> throw new AssertionError("handled above");
        }
        awaitAccessLine(id);
        traceIdsAreTheOnesTheOriginSaw(origin, id);
    }

    /**
     * A plugin's 204/304 over the origin's answer ({@link Expect#DROPPED}), then the next request through the same
     * route (the same pool; this route's cells take turns), which must get its own answer, on the connection the
     * dropped answer leaves: the same origin connection after a drain or over HTTP/2 (the stream reset), a new one
     * after a close.
     */
    private static void dropped(Cell cell, MatrixClient client, MatrixOrigin origin, String path, String id)
            throws Exception {
        Body b = cell.body();
        Map<String, AtomicInteger> routeCounts = sent.get(cell.down().gateway);
        UpstreamPool pool = gateways.get(cell.down().gateway).gateway().upstreams().get(cell.route()).pools().get(0);
        awaitSettled(pool, "the route's cell before " + id);
        Outcome o = client.exchange(new Send("GET", path + "?as=" + b.dropStatus(), id, 0, false, Shape.WHOLE));
        routeCounts.computeIfAbsent(cell.route(), k -> new AtomicInteger()).incrementAndGet();
        assertThat(o.status()).as("the plugin's status (%s)", o).isEqualTo(b.dropStatus());
        assertThat(o.bytes()).as("no body after a %d (%s)", b.dropStatus(), o).isZero();
        assertThat(o.complete()).as("the answer ended as framed (%s)", o).isTrue();
        awaitSettled(pool, "the dropped answer of " + id);
        String next = id + "n";
        Outcome n = client.exchange(new Send("GET", "/" + cell.up().label + "/" + cell.feature().label + "/id/"
                + next, next, 0, false, Shape.WHOLE));
        routeCounts.computeIfAbsent(cell.route(), k -> new AtomicInteger()).incrementAndGet();
        byte[] own = ("id " + next).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(n.status()).as("the next request's status (%s)", n).isEqualTo(200);
        assertThat(n.sha256()).as("the next request got its own answer, \"id %s\" (%s)", next, n)
                .isEqualTo(MatrixBodies.sha256(own));
        boolean http2Origin = cell.up() == Upstream.H2C || cell.up() == Upstream.H2_TLS;
        boolean kept = b.drained() || http2Origin;
        if (kept) {
            assertThat(origin.connectionOf(next)).as("the origin connection of the next request: the dropped "
                    + "answer's, kept (%s)", http2Origin ? "HTTP/2: its stream reset" : "its body drained")
                    .isEqualTo(origin.connectionOf(id));
        } else {
            assertThat(origin.connectionOf(next)).as("the origin connection of the next request: a new one, the "
                    + "dropped answer's closed with its body unread").isNotEqualTo(origin.connectionOf(id));
        }
        if (b == Body.DROP_ENDLESS) {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!origin.endlessEnded(id) && System.nanoTime() < end) {
                Thread.sleep(10);
            }
            assertThat(origin.endlessEnded(id)).as("the origin's endless answer ended (closed or reset)").isTrue();
        }
        awaitAccessLine(id);
        awaitAccessLine(next);
    }

    /** Until the pool has no connection lent and no stream open: the exchange before it has settled its attempt. */
    private static void awaitSettled(UpstreamPool pool, String what) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while ((pool.inUseCount() > 0 || pool.http2StreamCount() > 0) && System.nanoTime() < end) {
            Thread.sleep(1);
        }
        assertThat(pool.inUseCount() + pool.http2StreamCount()).as("%s: connections lent, streams open", what)
                .isZero();
    }

    /**
     * The json access line (ECS) names the trace the origin got in traceparent, and a span of the gateway's own: 16
     * hex digits, not all zero. (Which span id the origin sees beside it is the tracer's business: the exchange's own
     * span without one, an attempt's client span under it with one.)
     */
    private static void traceIdsAreTheOnesTheOriginSaw(MatrixOrigin origin, String id) throws Exception {
        String traceparent = origin.traceparent(id);
        if (traceparent == null) {
            // Only a request that never reached the origin (refused, limited, or the client went first) has none:
            // every try carries the one its codec writes from the exchange's ids (HTTP/1.1 text, HPACK).
            assertThat(origin.received(id)).as("a try of %s reached the origin without a traceparent", id).isNull();
            return;
        }
        assertThat(traceparent).as("traceparent of %s", id).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]");
        com.fasterxml.jackson.databind.JsonNode line = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(accessLines.get(id).getFirst());
        assertThat(line.path("trace.id").asText()).as("trace.id of %s", id).isEqualTo(traceparent.substring(3, 35));
        assertThat(line.path("span.id").asText()).as("span.id of %s", id).matches("[0-9a-f]{16}")
                .isNotEqualTo("0000000000000000");
    }

    /** The origin's read of an aborted body ends (in error) once the gateway passes the abort on. */
    private static void awaitOriginDone(MatrixOrigin origin, String id) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (origin.received(id).sha256() == null && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        assertThat(origin.received(id).sha256()).as("the origin's read of %s ended", id).isNotNull();
    }

    private static void awaitAccessLine(String id) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        // Not containsKey: the appender makes the list and adds the line in two steps, and between them the list is
        // there but empty (the cause of this check's rare failures with the line in the log).
        while (accessLines.getOrDefault(id, List.of()).isEmpty() && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        assertThat(accessLines.get(id)).as("the access-log line of %s", id).isNotEmpty();
    }

    private static void metricsAddUp(Gateway g) throws Exception {
        ServedGateway gw = gateways.get(g);
        String text = ADMIN.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gw.adminPort() + "/metrics"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body();
        Map<String, Double> counted = new java.util.TreeMap<>();
        Pattern sample = Pattern.compile("^loomgate_requests_total\\{(.*)} (\\S+)$", Pattern.MULTILINE);
        Matcher m = sample.matcher(text);
        while (m.find()) {
            Matcher route = Pattern.compile("route=\"([^\"]*)\"").matcher(m.group(1));
            if (route.find()) {
                counted.merge(route.group(1), Double.parseDouble(m.group(2)), Double::sum);
            }
        }
        Map<String, Double> expected = new java.util.TreeMap<>();
        sent.get(g).forEach((route, n) -> expected.put(route, (double) n.get()));
        counted.values().removeIf(v -> v == 0);
        assertThat(counted).as("loomgate_requests_total by route").isEqualTo(expected);
    }
}
