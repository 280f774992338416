package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.filter.GatewayFilter;
import io.loomgate.http.Headers;
import io.loomgate.http.ResponseHead;
import io.loomgate.proxy.BoundRoutes;
import io.loomgate.proxy.ExchangeListener;
import io.loomgate.proxy.ProxyHandler;
import io.loomgate.proxy.ProxySettings;
import io.loomgate.route.PredicateContext;
import io.loomgate.route.Route;
import io.loomgate.route.RoutePredicate;
import io.loomgate.route.RouteTable;
import io.loomgate.server.ConnectionListener;
import io.loomgate.server.Listener;
import io.loomgate.server.ListenerSettings;
import io.loomgate.server.Transport;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestPki;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import io.loomgate.tls.ClientTls;
import io.loomgate.tls.ClientTlsSettings;
import io.loomgate.tls.TlsProvider;
import io.loomgate.upstream.Endpoint;
import io.loomgate.upstream.PoolListener;
import io.loomgate.upstream.PoolSettings;
import io.loomgate.upstream.UpstreamDefinition;
import io.loomgate.upstream.Upstreams;
import io.loomgate.testkit.H2Origin;
import io.loomgate.upstream.UpstreamPool;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

/**
 * Answers a filter changed or made (what a plugin may do through {@code FilterExchange}: a proxied response's status
 * set to one without a body, a local reply whose head carries a Content-Length of its own) reach HTTP/1.1 and h2c
 * clients with one Content-Length that matches the body they get, or none where RFC 9110 §8.6 forbids it; and the
 * connection still frames the next response right. The origin answers every request "hello from origin" (17 bytes,
 * Content-Length: 17). The gateway is built from the core's classes, as ObservedGateway is, so a filter can be Java.
 *
 * <p>And what becomes of the origin's side when the client does not get the origin's whole body (the second half,
 * {@code DroppedBodies}): what the traffic matrix does not cross with every listener and origin kind (a plugin's
 * 204/304 over fixed, chunked, 1 MiB and endless answers is {@code TrafficMatrixTest}'s {@code drop} route since
 * session 53): a HEAD sent on as a GET, a 103 before a dropped body, the HTTP/2 origin's connection window after 20 MiB
 * of dropped bodies, an origin's bodiless answer followed by bytes it should not have sent (plain and over TLS with
 * either provider), a client that leaves mid-body, a response timeout mid-body. After each, the next request through
 * the same route (the same pool) must get its own answer (the origin echoes an id), and the origin must see the
 * connections it should: the same one when the rest was drained (small bodies, HTTP/2 streams), exactly one new one
 * when it was closed (large, endless, cut).
 */
class FilterMadeAnswersLengthTest {
    private static final String ORIGIN_BODY = "hello from origin";

    /** {@code Path=<prefix>/**}. */
    private record PathPrefix(String prefix) implements RoutePredicate {
        @Override
        public boolean test(PredicateContext context) {
            return context.request().path().startsWith(prefix);
        }
    }

    /** Sets the proxied response's status after the origin answered, as a plugin may (SetStatus refuses 204/304). */
    private static GatewayFilter statusTo(int status) {
        return (exchange, chain) -> {
            chain.proceed(exchange);
            exchange.setResponse(exchange.response().withStatus(status));
        };
    }

    /** Answers locally with a head that says Content-Length itself. */
    private static GatewayFilter localReply(int status, String contentLength, String body) {
        return (exchange, chain) -> exchange.replyLocally(new ResponseHead("HTTP/1.1", status, "",
                new Headers().add("Content-Length", contentLength)), body.getBytes(StandardCharsets.US_ASCII));
    }

    private static final class Gateway implements AutoCloseable {
        final Upstreams upstreams;
        final Listener listener;

        Gateway(int originPort) throws Exception {
            List<Route> routes = new ArrayList<>();
            List<UpstreamDefinition> definitions = new ArrayList<>();
            Object[][] table = {
                    {"to204", "/to204", statusTo(204)},
                    {"to304", "/to304", statusTo(304)},
                    {"local204", "/local204", localReply(204, "3", "abc")},
                    {"local200", "/local200", localReply(200, "999", "abc")},
                    {"plain", "/", null},
            };
            for (int i = 0; i < table.length; i++) {
                String id = (String) table[i][0];
                List<GatewayFilter> filters = table[i][2] == null ? List.of() : List.of((GatewayFilter) table[i][2]);
                routes.add(new Route(id, i, List.of(new PathPrefix((String) table[i][1])), filters,
                        Duration.ofSeconds(5), true, 0, Duration.ZERO));
                definitions.add(new UpstreamDefinition(id, List.of(new Endpoint("127.0.0.1", originPort)),
                        PoolSettings.DEFAULTS));
            }
            upstreams = Upstreams.create(definitions, PoolListener.NOOP);
            ProxyHandler proxy = new ProxyHandler(BoundRoutes.bind(new RouteTable(routes), r -> upstreams.get(r.id())),
                    ProxySettings.DEFAULTS, ExchangeListener.NOOP);
            listener = new Listener(ListenerSettings.defaults("127.0.0.1", 0).withHttp2(Http2Settings.enabledDefaults()),
                    proxy, ConnectionExecutors.create(ThreadModel.VIRTUAL, "gw-lengths"), ConnectionListener.NOOP)
                    .start();
        }

        @Override
        public void close() {
            listener.close();
            upstreams.close();
        }
    }

    @Test
    void http11ClientsGetOneMatchingLengthOrNone() throws Exception {
        try (TestOrigin origin = new TestOrigin(); Gateway gw = new Gateway(origin.port());
             RawClient c = new RawClient(gw.listener.port())) {
            for (String path : new String[] {"/to204", "/to304", "/local204"}) {
                RawClient.Response r = c.send("GET " + path + " HTTP/1.1\r\nHost: h\r\n\r\n").read();
                assertThat(r.status()).as(path).isIn(204, 304);
                assertThat(r.headers("Content-Length")).as("Content-Length of " + path).isEmpty();
                assertThat(r.header("Transfer-Encoding")).as(path).isNull();
                // the connection still frames the next answer: nothing of the dropped body was sent
                RawClient.Response next = c.send("GET /next HTTP/1.1\r\nHost: h\r\n\r\n").read();
                assertThat(next.bodyText()).as("after " + path).isEqualTo(ORIGIN_BODY);
                assertThat(next.headers("Content-Length")).containsExactly("17");
            }
            RawClient.Response local = c.send("GET /local200 HTTP/1.1\r\nHost: h\r\n\r\n").read();
            assertThat(local.headers("Content-Length")).containsExactly("3");
            assertThat(local.bodyText()).isEqualTo("abc");
            assertThat(c.send("GET /next HTTP/1.1\r\nHost: h\r\n\r\n").read().bodyText()).isEqualTo(ORIGIN_BODY);
            RawClient.Response old = c.send("GET /old HTTP/1.0\r\nHost: h\r\nConnection: keep-alive\r\n\r\n").read();
            assertThat(old.headers("Content-Length")).containsExactly("17");
            assertThat(old.bodyText()).isEqualTo(ORIGIN_BODY);
        }
    }

    @Test
    void h2cClientsGetOneMatchingLengthOrNone() throws Exception {
        try (TestOrigin origin = new TestOrigin(); Gateway gw = new Gateway(origin.port());
             RawH2Client c = new RawH2Client(gw.listener.port())) {
            int stream = 1;
            for (String path : new String[] {"/to204", "/to304", "/local204"}) {
                int s = stream;
                c.get(s, path);
                RawH2Client.Frame head = c.await(f -> f.stream() == s && f.type() == Frames.HEADERS);
                assertThat(head.endStream()).as(path + " ends with its head").isTrue();
                assertThat(lengths(c, head)).as("content-length of " + path).isEmpty();
                stream += 2;
            }
            int s = stream;
            c.get(s, "/local200");
            assertThat(lengths(c, c.await(f -> f.stream() == s && f.type() == Frames.HEADERS))).containsExactly("3");
            assertThat(c.body(s)).isEqualTo("abc");
            int p = s + 2;
            c.get(p, "/plain");
            assertThat(lengths(c, c.await(f -> f.stream() == p && f.type() == Frames.HEADERS))).containsExactly("17");
            assertThat(c.body(p)).isEqualTo(ORIGIN_BODY);
        }
    }

    // ---- DroppedBodies: the origin's side when the client does not get the origin's whole body ----

    /** How long any wait of these cases may take (polls with a deadline, never a sleep). */
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(20);
    private static final int PIECE = 16 * 1024;
    private static final int MIB = 1024 * 1024;

    /** A body shape: the path each origin answers it on, and whether a drop can keep an HTTP/1.1 connection. */
    private record Shape(String name, String http1Path, String h2Path, boolean small) {
    }

    private static final List<Shape> SHAPES = List.of(
            new Shape("fixed 17 B", "/fixed/17", "/bytes/17", true),
            new Shape("fixed 40 KiB", "/fixed/40960", "/bytes/40960", true),
            new Shape("chunked 40 KiB", "/chunked/40960", "/chunked/40960", true),
            new Shape("fixed 1 MiB", "/fixed/" + MIB, "/bytes/" + MIB, false),
            new Shape("chunked 1 MiB", "/chunked/" + MIB, "/chunked/" + MIB, false),
            new Shape("endless", "/endless", "/endless", false));

    /**
     * Lets the answer through, or, when the request says {@code x-answer: 204} (or 304), turns the origin's answer
     * into that status after it came, as a plugin may: the origin's body is then not the client's. A request that says
     * {@code x-method: GET} goes to the origin with that method (a client's HEAD becomes a GET, whose body the client
     * does not get either).
     */
    private static GatewayFilter statusFromRequest() {
        return (exchange, chain) -> {
            String to = exchange.request().headers().first("x-answer");
            String method = exchange.request().headers().first("x-method");
            if (method != null) {
                exchange.setRequest(exchange.request().withMethod(method));
            }
            chain.proceed(exchange);
            if (to != null) {
                exchange.setResponse(exchange.response().withStatus(Integer.parseInt(to)));
            }
        };
    }

    /** One route ({@code Path=/**}, the filter above) to one origin: one pool, which every request of a case uses. */
    private static final class OneRoute implements AutoCloseable {
        final Upstreams upstreams;
        final Listener listener;

        OneRoute(Endpoint origin, Duration bodyReadTimeout) throws Exception {
            this(origin, bodyReadTimeout, PoolSettings.DEFAULTS);
        }

        OneRoute(Endpoint origin, Duration bodyReadTimeout, PoolSettings pool) throws Exception {
            Route route = new Route("drop", 0, List.of(new PathPrefix("/")), List.of(statusFromRequest()),
                    Duration.ofSeconds(10), true, 0, Duration.ZERO);
            upstreams = Upstreams.create(List.of(new UpstreamDefinition("drop", List.of(origin), pool)),
                    PoolListener.NOOP);
            ProxyHandler proxy = new ProxyHandler(BoundRoutes.bind(new RouteTable(List.of(route)),
                    r -> upstreams.get(r.id())), new ProxySettings(List.of(), bodyReadTimeout,
                    ProxySettings.DEFAULTS.limits()), ExchangeListener.NOOP);
            ListenerSettings settings = ListenerSettings.defaults("127.0.0.1", 0)
                    .withHttp2(Http2Settings.enabledDefaults());
            listener = new Listener(settings, proxy, ConnectionExecutors.create(ThreadModel.VIRTUAL, "gw-drops"),
                    ConnectionListener.NOOP).start();
        }

        UpstreamPool pool() {
            return upstreams.get("drop").pools().get(0);
        }

        /** Until the exchange before has settled its attempt: no connection lent, no stream open. */
        void awaitSettled(String after) {
            UpstreamPool p = pool();
            await("the attempt settled after " + after, () -> p.inUseCount() == 0 && p.http2StreamCount() == 0);
        }

        @Override
        public void close() {
            listener.close();
            upstreams.close();
        }
    }

    private static void await(String what, BooleanSupplier done) {
        long end = System.nanoTime() + WAIT_NANOS;
        while (!done.getAsBoolean()) {
            assertThat(System.nanoTime() - end).as(what).isNegative();
            LockSupport.parkNanos(1_000_000); // a poll every millisecond, not a core spun on a loaded machine
        }
    }

    /** Pieces of a chunked body, framed, with the last chunk; or without end when {@code n} is negative. */
    private static List<byte[]> chunked(long n) {
        ByteArrayOutputStream framed = new ByteArrayOutputStream();
        framed.writeBytes((Integer.toHexString(PIECE) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        framed.writeBytes(new byte[PIECE]);
        framed.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        byte[] chunk = framed.toByteArray();
        if (n < 0) {
            return new AbstractList<>() { // the origin writes piece after piece until the gateway closes
                @Override
                public byte[] get(int index) {
                    return chunk;
                }

                @Override
                public int size() {
                    return Integer.MAX_VALUE;
                }
            };
        }
        List<byte[]> pieces = new ArrayList<>();
        long left = n;
        for (; left >= PIECE; left -= PIECE) {
            pieces.add(chunk);
        }
        ByteArrayOutputStream last = new ByteArrayOutputStream();
        if (left > 0) {
            last.writeBytes((Long.toHexString(left) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            last.writeBytes(new byte[(int) left]);
            last.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        last.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        pieces.add(last.toByteArray());
        return pieces;
    }

    private static List<byte[]> fixed(long n) {
        List<byte[]> pieces = new ArrayList<>();
        for (long left = n; left > 0; left -= PIECE) {
            pieces.add(new byte[(int) Math.min(PIECE, left)]);
        }
        return pieces;
    }

    /**
     * The HTTP/1.1 origin: {@code /id/X} answers "id X"; {@code /fixed/N}, {@code /chunked/N}, {@code /endless} the
     * body shapes; {@code /hints/N} a 103 before a fixed N-byte answer; {@code /stray/204}, {@code /stray/304} and a
     * HEAD of {@code /stray/head} an answer without a body, then, once {@code strayGate} opens, what looks like
     * another answer (then {@code strayWritten} counts down).
     */
    private static TestOrigin.Reply http1Answer(TestOrigin.Recorded r, CountDownLatch strayGate,
                                                CountDownLatch strayWritten) {
        String t = r.target();
        if (t.startsWith("/id/")) {
            return TestOrigin.Reply.ok("id " + t.substring(4));
        }
        if (t.startsWith("/fixed/")) {
            long n = Long.parseLong(t.substring(7));
            return new TestOrigin.Reply("HTTP/1.1 200 OK", List.of("Content-Length: " + n), fixed(n), Duration.ZERO,
                    Duration.ZERO, TestOrigin.Effect.NONE);
        }
        if (t.startsWith("/chunked/") || t.equals("/endless")) {
            long n = t.equals("/endless") ? -1 : Long.parseLong(t.substring(9));
            return new TestOrigin.Reply("HTTP/1.1 200 OK", List.of("Transfer-Encoding: chunked"), chunked(n),
                    Duration.ZERO, Duration.ZERO, TestOrigin.Effect.NONE);
        }
        if (t.startsWith("/hints/")) {
            int n = Integer.parseInt(t.substring(7));
            return TestOrigin.Reply.raw("HTTP/1.1 103 Early Hints", List.of("Link: </style.css>; rel=preload"),
                    "HTTP/1.1 200 OK\r\nContent-Length: " + n + "\r\n\r\n" + "h".repeat(n));
        }
        if (t.startsWith("/stray/")) {
            String kind = t.substring(7);
            String status = kind.equals("head") ? "200 OK" : kind + " X";
            String stale = "stale " + kind;
            List<String> fields = kind.equals("head") ? List.of("Content-Length: " + stale.length()) : List.of();
            byte[] strayBytes = (kind.equals("head") ? stale
                    : "HTTP/1.1 200 OK\r\nContent-Length: " + stale.length() + "\r\n\r\n" + stale)
                    .getBytes(StandardCharsets.US_ASCII);
            // the head alone; then, past the gate, the stray bytes; the last piece is asked for once they are out
            List<byte[]> pieces = new AbstractList<>() {
                @Override
                public byte[] get(int index) {
                    if (index == 2) {
                        strayWritten.countDown();
                    }
                    return index == 1 ? strayBytes : new byte[0];
                }

                @Override
                public int size() {
                    return 3;
                }
            };
            return new TestOrigin.Reply("HTTP/1.1 " + status, fields, pieces, Duration.ZERO, Duration.ZERO,
                    TestOrigin.Effect.BODY_FOR_HEAD).gatedBy(strayGate);
        }
        return TestOrigin.Reply.status(404);
    }

    /** A client of either kind: one request at a time on one connection, the answer's status and body. */
    private interface Client extends AutoCloseable {
        Answer get(String path, String answerAs) throws IOException, HpackException;

        default String id(int n) throws IOException, HpackException {
            return get("/id/" + n, null).body();
        }

        @Override
        void close() throws IOException;
    }

    private record Answer(int status, String body) {
    }

    private static final class Http1Client implements Client {
        final RawClient c;

        Http1Client(int port) throws IOException {
            c = new RawClient(port);
        }

        @Override
        public Answer get(String path, String answerAs) throws IOException {
            return get("GET", path, answerAs);
        }

        Answer get(String method, String path, String answerAs) throws IOException {
            return send(method, path, answerAs == null ? "" : "x-answer: " + answerAs + "\r\n");
        }

        Answer send(String method, String path, String fieldLines) throws IOException {
            RawClient.Response r = c.send(method + " " + path + " HTTP/1.1\r\nHost: h\r\n" + fieldLines + "\r\n")
                    .read(method);
            while (r.status() < 200) { // an interim head (103) before the answer
                r = c.read(method);
            }
            return new Answer(r.status(), r.bodyText());
        }

        @Override
        public void close() throws IOException {
            c.close();
        }
    }

    private static final class H2cClient implements Client {
        final RawH2Client c;
        int stream = 1;

        H2cClient(int port) throws IOException {
            c = new RawH2Client(port);
            c.windowUpdate(0, Integer.MAX_VALUE - 65_535); // this client's connection window never runs out
        }

        @Override
        public Answer get(String path, String answerAs) throws IOException, HpackException {
            int s = stream;
            stream += 2;
            c.headers(s, answerAs == null ? RawH2Client.request("GET", path)
                    : RawH2Client.request("GET", path, "x-answer", answerAs), true);
            RawH2Client.Frame head;
            int status;
            do { // past an interim head (103) to the answer
                head = c.await(f -> f.stream() == s && f.type() == Frames.HEADERS);
                status = Integer.parseInt(c.fields(head).get(":status"));
            } while (status < 200);
            return new Answer(status, head.endStream() ? "" : c.body(s));
        }

        @Override
        public void close() throws IOException {
            c.close();
        }
    }

    private interface ClientMaker {
        Client open(int port) throws IOException;
    }

    /**
     * The dropped bodies the traffic matrix does not cross with every listener and origin ({@code TrafficMatrixTest},
     * its {@code drop} route: a plugin's 204/304 over fixed, chunked, 1 MiB and endless answers): a client's HEAD sent
     * on to an HTTP/1.1 origin as a GET, whose body the client does not get either (every shape: drained when small,
     * its connection closed otherwise), and a 103 before an answer a filter turned into a 204 (the interim head
     * relayed, the body drained), through an HTTP/1.1 and an h2c client. After each, the next request through the
     * route gets its own answer, and the origin sees one connection kept, or exactly one new one.
     */
    @Test
    void aHeadSentOnAsGetAndA103BeforeADroppedBodyLeaveTheHttp11OriginSafe() throws Exception {
        for (ClientMaker maker : new ClientMaker[] {Http1Client::new, H2cClient::new}) {
            try (TestOrigin origin = new TestOrigin(); OneRoute gw = new OneRoute(
                    new Endpoint("127.0.0.1", origin.port()), ProxySettings.DEFAULTS.bodyReadTimeout());
                 Client c = maker.open(gw.listener.port())) {
                origin.fallback(r -> http1Answer(r, null, null));
                int n = 0;
                assertThat(c.id(n)).isEqualTo("id " + n);
                if (c instanceof Http1Client h1) { // a client's HEAD sent on as a GET: the GET's body is dropped
                    for (Shape shape : SHAPES) {
                        String what = "HEAD sent on as GET, " + shape.name();
                        gw.awaitSettled("the answer before " + what);
                        int before = origin.connectionCount();
                        Answer a = h1.send("HEAD", shape.http1Path(), "x-method: GET\r\n");
                        assertThat(a.status()).as(what).isEqualTo(200);
                        gw.awaitSettled(what);
                        n++;
                        assertThat(c.id(n)).as("the next answer after " + what).isEqualTo("id " + n);
                        assertThat(origin.connectionCount()).as("origin connections after " + what)
                                .isEqualTo(before + (shape.small() ? 0 : 1));
                    }
                }
                // A 103 before the answer a filter turned into a 204: the interim head is relayed, the body drained.
                gw.awaitSettled("the first answer");
                int before = origin.connectionCount();
                assertThat(c.get("/hints/17", "204").status()).isEqualTo(204);
                gw.awaitSettled("the 103 case");
                assertThat(c.id(++n)).isEqualTo("id " + n);
                assertThat(origin.connectionCount()).as("origin connections after the 103").isEqualTo(before);
            }
        }
    }

    /**
     * An HTTP/2 origin's connection window is not leaked by dropped bodies (each shape's drop or reset, and the
     * connection serving on, is the traffic matrix's {@code drop} route over h2c and h2 origins): more than its 16 MiB
     * connection window of dropped bodies (20 MiB) goes through the one upstream connection, and it still answers.
     */
    @Test
    void droppedBodiesFromAnHttp2OriginNeverHoldItsConnectionWindow() throws Exception {
        for (ClientMaker maker : new ClientMaker[] {Http1Client::new, H2cClient::new}) {
            try (H2Origin origin = H2Origin.h2c(); OneRoute gw = new OneRoute(
                    new Endpoint("127.0.0.1", origin.port(), false, true), ProxySettings.DEFAULTS.bodyReadTimeout());
                 Client c = maker.open(gw.listener.port())) {
                int n = 0;
                assertThat(c.id(n)).isEqualTo("id " + n);
                // Dropped bodies of 1 MiB (each stream takes up to its 256 KiB window before its reset) until the
                // origin has sent past the connection's 16 MiB window, which stalls unless it is given back for them.
                long sentBefore = origin.bodyBytesSent();
                int drops = 0;
                while (origin.bodyBytesSent() - sentBefore < 20L * MIB) {
                    assertThat(c.get("/chunked/" + MIB, "204").status()).isEqualTo(204);
                    assertThat(++drops).as("dropped bodies to send 20 MiB").isLessThan(2000);
                }
                gw.awaitSettled("the dropped bodies");
                assertThat(c.id(++n)).isEqualTo("id " + n);
                assertThat(origin.connections()).as("upstream connections").isEqualTo(1);
            }
        }
    }

    /**
     * An HTTP/1.1 origin's answer without a body (a 204, a 304, a HEAD's 200) followed, after the gateway read it,
     * by bytes it should not have sent (here another answer's worth): its connection must not go on to the next
     * request, which would read them as its answer. The test waits until the origin has written them, as a next
     * request that comes a moment later would find them. A plain origin, and an {@code https://} one with either TLS
     * provider (JSSE's socket, Conscrypt's engine under the gateway's own socket): over TLS the bytes wait under the
     * TLS layer, in the kernel's queue or a read-ahead buffer, where session 52's plain probe did not look. Each on
     * both transports of the connections to origins: the JDK's sockets and, where it runs, epoll's (its own
     * read-ahead buffer under JSSE, its readiness flags for the lease's check).
     */
    @Test
    void bytesAnHttp11OriginSendsAfterABodilessAnswerNeverBecomeTheNextAnswer() throws Exception {
        TestPki.requireOpenssl();
        TestPki pki = TestPki.create("stray bytes CA");
        TestPki.Issued cert = pki.issue("stray-origin", "localhost", "localhost");
        List<String> failed = new ArrayList<>(); // every combination's verdict, not only the first failure's
        List<Transport> transports = new ArrayList<>(List.of(Transport.JDK));
        if (Transport.epollUnavailableReason() == null) {
            transports.add(Transport.EPOLL);
        }
        for (Transport transport : transports) {
            for (String over : new String[] {"plain", "tls(jdk)", "tls(conscrypt)"}) {
                for (String kind : new String[] {"204", "304", "head"}) {
                    String what = kind + " over " + over + " on " + transport;
                    try {
                        strayBytesCase(pki, cert, over, kind, what, transport);
                    } catch (AssertionError e) {
                        failed.add(e.getMessage());
                    }
                }
            }
        }
        assertThat(failed).as("the cases that failed").isEmpty();
    }

    private static void strayBytesCase(TestPki pki, TestPki.Issued cert, String over, String kind, String what,
                                       Transport transport) throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        CountDownLatch written = new CountDownLatch(1);
        boolean tls = !over.equals("plain");
        PoolSettings pool = !tls ? PoolSettings.DEFAULTS : PoolSettings.DEFAULTS.withTls(ClientTls.create(
                ClientTlsSettings.DEFAULTS.withTrust(pki.caCert()).withProvider(
                        over.equals("tls(jdk)") ? TlsProvider.JDK : TlsProvider.CONSCRYPT)));
        if (transport == Transport.EPOLL) {
            pool = pool.withDialer(Transport::connectOnEpoll); // as the gateway dials on server.transport: epoll
        }
        try (TestOrigin origin = tls ? TestOrigin.tls(pki.serverContext(cert), false) : new TestOrigin();
             OneRoute gw = new OneRoute(tls ? new Endpoint("localhost", origin.port(), true)
                     : new Endpoint("127.0.0.1", origin.port()), ProxySettings.DEFAULTS.bodyReadTimeout(),
                     pool);
             Http1Client c = new Http1Client(gw.listener.port())) {
            origin.fallback(r -> http1Answer(r, gate, written));
            assertThat(c.id(0)).isEqualTo("id 0");
            gw.awaitSettled("the first answer");
            Answer a = c.get(kind.equals("head") ? "HEAD" : "GET", "/stray/" + kind, null);
            assertThat(a.status()).as(what).isEqualTo(kind.equals("head") ? 200 : Integer.parseInt(kind));
            gate.countDown(); // the gateway has read the answer's head: the stray bytes come after it
            assertThat(written.await(10, TimeUnit.SECONDS)).as("the origin wrote its stray bytes").isTrue();
            gw.awaitSettled("the stray bytes of " + what);
            assertThat(c.id(1)).as("the next answer after the stray bytes of " + what).isEqualTo("id 1");
            assertThat(c.id(2)).isEqualTo("id 2");
            assertThat(origin.connectionCount()).as("origin connections after " + what).isEqualTo(2);
        }
    }

    /**
     * A client that leaves in the middle of a large or endless body: an HTTP/1.1 client closing its connection, an
     * h2c client resetting its stream. The HTTP/1.1 origin's connection is closed (exactly one new one for the next
     * request); an HTTP/2 origin's stream is reset and its connection serves on, its windows intact after 20 MiB of
     * reset streams.
     */
    @Test
    void aClientThatLeavesMidBodyLeavesTheOriginSafe() throws Exception {
        for (boolean h2Origin : new boolean[] {false, true}) {
            TestOrigin http1 = h2Origin ? null : new TestOrigin();
            H2Origin h2 = h2Origin ? H2Origin.h2c() : null;
            IntSupplier connections = h2Origin ? h2::connections : http1::connectionCount;
            Endpoint endpoint = h2Origin ? new Endpoint("127.0.0.1", h2.port(), false, true)
                    : new Endpoint("127.0.0.1", http1.port());
            if (http1 != null) {
                http1.fallback(r -> http1Answer(r, null, null));
            }
            try (AutoCloseable o = h2Origin ? h2 : http1;
                 OneRoute gw = new OneRoute(endpoint, ProxySettings.DEFAULTS.bodyReadTimeout());
                 H2cClient h2c = new H2cClient(gw.listener.port())) {
                int n = 0;
                assertThat(h2c.id(n)).isEqualTo("id " + n); // the origin's first connection
                for (Shape shape : SHAPES) {
                    if (shape.small()) {
                        continue;
                    }
                    String path = h2Origin ? shape.h2Path() : shape.http1Path();
                    String what = (h2Origin ? "h2 origin, " : "HTTP/1.1 origin, ") + shape.name();
                    // HTTP/1.1: the client closes after the head and the first piece of the body
                    gw.awaitSettled("the case before " + what);
                    int before = connections.getAsInt();
                    try (RawClient c = new RawClient(gw.listener.port())) {
                        c.send("GET " + path + " HTTP/1.1\r\nHost: h\r\n\r\n");
                        c.socket().getInputStream().readNBytes(1024);
                    }
                    gw.awaitSettled(what);
                    assertThat(h2c.id(++n)).as("the next answer after an HTTP/1.1 client left " + what)
                            .isEqualTo("id " + n);
                    // A finite body may have gone whole into the sockets' buffers before the client's close showed:
                    // then it was read to its end and its connection kept. An endless one cannot.
                    assertThat(connections.getAsInt()).as("origin connections after " + what)
                            .isBetween(before, before + (h2Origin ? 0 : 1));
                    if (!h2Origin && shape.http1Path().equals("/endless")) {
                        assertThat(connections.getAsInt()).as(what).isEqualTo(before + 1);
                    }
                    // h2c: the client resets its stream after the first DATA
                    gw.awaitSettled(what);
                    before = connections.getAsInt();
                    int s = h2c.stream;
                    h2c.stream += 2;
                    h2c.c.get(s, path);
                    h2c.c.await(f -> f.stream() == s && f.type() == Frames.DATA);
                    h2c.c.rst(s, Frames.CANCEL);
                    gw.awaitSettled(what);
                    assertThat(h2c.id(++n)).as("the next answer after an h2c client reset " + what)
                            .isEqualTo("id " + n);
                    assertThat(connections.getAsInt()).as("origin connections after the reset, " + what)
                            .isEqualTo(before + (h2Origin ? 0 : 1));
                }
                if (h2Origin) { // resets until the origin has sent past the connection's 16 MiB window
                    long sentBefore = h2.bodyBytesSent();
                    for (int i = 0; h2.bodyBytesSent() - sentBefore < 20L * MIB; i++) {
                        assertThat(i).as("resets to send 20 MiB").isLessThan(2000);
                        int s = h2c.stream;
                        h2c.stream += 2;
                        h2c.c.get(s, "/endless");
                        h2c.c.await(f -> f.stream() == s && f.type() == Frames.DATA);
                        h2c.c.rst(s, Frames.CANCEL);
                    }
                    gw.awaitSettled("the resets");
                    assertThat(h2c.id(++n)).isEqualTo("id " + n);
                    assertThat(connections.getAsInt()).as("upstream connections after the resets").isEqualTo(1);
                }
            }
        }
    }

    /**
     * An HTTP/1.1 origin that stops mid-body past the body read timeout: the client's answer is cut (its connection
     * closed, never a body that looks whole), the origin's connection closed, and the next request gets its own answer
     * on exactly one new connection.
     */
    @Test
    void aResponseTimeoutMidBodyClosesTheOriginConnection() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        try (TestOrigin origin = new TestOrigin(); OneRoute gw = new OneRoute(
                new Endpoint("127.0.0.1", origin.port()), Duration.ofMillis(300));
             Http1Client c = new Http1Client(gw.listener.port())) {
            origin.fallback(r -> r.target().equals("/stalls")
                    ? new TestOrigin.Reply("HTTP/1.1 200 OK", List.of("Content-Length: " + 2 * PIECE), fixed(2 * PIECE),
                    Duration.ZERO, Duration.ZERO, TestOrigin.Effect.NONE).gatedBy(never)
                    : http1Answer(r, null, null));
            assertThat(c.id(0)).isEqualTo("id 0");
            RawClient.Response cut = c.c.send("GET /stalls HTTP/1.1\r\nHost: h\r\n\r\n").read();
            assertThat(cut.complete()).as("the cut answer does not look whole").isFalse();
            gw.awaitSettled("the cut answer");
            try (Http1Client next = new Http1Client(gw.listener.port())) {
                assertThat(next.id(1)).isEqualTo("id 1");
            }
            assertThat(origin.connectionCount()).isEqualTo(2);
            never.countDown();
        }
    }


    private static List<String> lengths(RawH2Client c, RawH2Client.Frame headers) throws HpackException {
        List<String> values = new ArrayList<>();
        for (String line : c.fieldLines(headers)) {
            if (line.regionMatches(true, 0, "content-length: ", 0, 16)) {
                values.add(line.substring(16));
            }
        }
        return values;
    }
}
