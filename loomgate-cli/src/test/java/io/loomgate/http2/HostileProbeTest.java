package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http2.ProbeListeners.Gateway;
import io.loomgate.http2.ProbeListeners.Kind;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.TestOrigin;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A hostile probe across every listener kind (plain HTTP/1.1, HTTP/1.1 over TLS with JSSE and with Conscrypt, h2c by
 * prior knowledge, h2 over TLS with either provider), against gateways configured as the traffic matrix's (metrics,
 * the JSON access log, retries and a rate limit on). Each probe asserts a specific answer (a status, a GOAWAY or
 * RST_STREAM code, a close) within a deadline, and that a well-behaved client on another connection of the same
 * listener is served meanwhile. Single cases that other tests cover on one listener (SmugglingTest over plain
 * HTTP/1.1, Http2AttackDefencesTest over h2c) are repeated here on every listener they apply to; the rest are new.
 */
@Execution(ExecutionMode.CONCURRENT) // the gateways side by side: see plain()
class HostileProbeTest {
    /** Runs only the probes whose listener label and name contain this, or one of its |-separated parts. */
    static final String ONLY_PROPERTY = "loomgate.probe.only";
    /**
     * Then leaves out the probes whose listener label and name contain one of this property's |-separated parts: a
     * pass that runs most of a kind but not the probes its axis does not change (the epoll pass and the TLS record
     * probes that JSSE's record layer answers whatever socket it reads from).
     */
    static final String SKIP_PROPERTY = "loomgate.probe.skip";
    private static final AtomicInteger IDS = new AtomicInteger();
    private static ProbeListeners listeners;

    @BeforeAll
    static void start() throws Exception {
        listeners = new ProbeListeners();
    }

    @AfterAll
    static void stop() throws Exception {
        if (listeners != null) {
            listeners.close();
        }
    }

    /** One probe on one listener, with a bystander beside it. */
    /**
     * Probes that fail today for an open defect another branch owns: reported as skipped with the defect (run them with
     * {@code -D}{@value #KNOWN_PROPERTY}{@code =run}; a passing one then means "delete its line").
     */
    record Known(String why, java.util.function.BiPredicate<Kind, String> applies) {
    }

    static final String KNOWN_PROPERTY = "loomgate.probe.known";

    /**
     * Empty since the linger branch's merge: its cells (the seven floods over h2+tls(conscrypt), whose GOAWAY the
     * client sometimes did not see) passed in five runs after it, failing 1-3 of 7 in every run before.
     */
    static final List<Known> KNOWN = List.of();

    private static DynamicTest probe(Kind k, String name, Probe p) {
        return probe(k, name, p, null, null);
    }

    /**
     * A probe in {@code lane} (null: on the factory's thread, in its turn); {@code after} (null: none): lanes whose
     * probes end before this one starts, so that it runs alone on its gateway.
     */
    private static DynamicTest probe(Kind k, String name, Probe p, ProbeLanes.Lane lane, ProbeLanes after) {
        String known = KNOWN.stream().filter(x -> x.applies().test(k, name)).map(Known::why).findFirst()
                .orElse(null);
        if (known != null && !"run".equals(System.getProperty(KNOWN_PROPERTY))) {
            return DynamicTest.dynamicTest(name, () -> org.junit.jupiter.api.Assumptions.abort("known defect: "
                    + known));
        }
        String only = System.getProperty(ONLY_PROPERTY, "");
        if (java.util.Arrays.stream(only.split("\\|")).noneMatch((k.label + " " + name)::contains)) {
            return DynamicTest.dynamicTest(name, () -> org.junit.jupiter.api.Assumptions.abort("not in -D"
                    + ONLY_PROPERTY + "=" + only));
        }
        String skip = System.getProperty(SKIP_PROPERTY, "");
        if (java.util.Arrays.stream(skip.split("\\|")).filter(part -> !part.isEmpty())
                .anyMatch((k.label + " " + name)::contains)) {
            return DynamicTest.dynamicTest(name, () -> org.junit.jupiter.api.Assumptions.abort("in -D"
                    + SKIP_PROPERTY + "=" + skip));
        }
        Executable e = () -> {
            if (after != null) {
                after.awaitAll();
            }
            try (BystanderLoop b = listeners.bystander(k)) {
                p.run(k);
            }
        };
        return DynamicTest.dynamicTest(name, lane != null ? lane.then(e) : e);
    }

    interface Probe {
        void run(Kind k) throws Exception;
    }

    /** The kinds of {@code kinds} that gateway {@code g} serves, each a container of its probes. */
    private static Stream<DynamicNode> perKind(Gateway g, List<Kind> kinds,
                                               java.util.function.Function<Kind, List<DynamicTest>> f) {
        return kinds.stream().filter(k -> k.gateway == g).map(k -> DynamicContainer.dynamicContainer(k.label, f.apply(k)));
    }

    /*
     * One factory per gateway (plain, TLS with JSSE, TLS with Conscrypt), run side by side (the class is CONCURRENT;
     * JUnit's parallel mode is enabled in the module's surefire configuration), each gateway's probes one after
     * another (a factory holding a resource lock runs its dynamic tests on its own thread, in order). The gateways
     * share nothing a probe asserts on: each has its own listener, connection limit, origin and bystanders, so a
     * probe that holds every connection of one (idle connections over max-connections) or floods it never meets
     * another's. Most of a gateway's time is waiting out its bounds (header-timeout, read-timeout, idle-timeout: the
     * slow clients and the TLS stalls), 142 s in a row for the three; side by side it is the longest gateway's.
     * Within a gateway, the probes that wait out a bound (the slow clients and the TLS ones: 42 of a TLS gateway's
     * 49 s in run 35) run in lanes side by side as well (see waits()), all but the one that holds every connection.
     */
    @TestFactory
    @ResourceLock("hostileprobe:PLAIN")
    Stream<DynamicNode> plain() {
        return on(Gateway.PLAIN);
    }

    @TestFactory
    @ResourceLock("hostileprobe:TLS_JDK")
    Stream<DynamicNode> tlsJdk() {
        return on(Gateway.TLS_JDK);
    }

    @TestFactory
    @ResourceLock("hostileprobe:TLS_CONSCRYPT")
    Stream<DynamicNode> tlsConscrypt() {
        return on(Gateway.TLS_CONSCRYPT);
    }

    /** Every probe of gateway {@code g}'s listeners, grouped as before by what it probes. */
    private Stream<DynamicNode> on(Gateway g) {
        List<DynamicNode> out = new ArrayList<>();
        java.util.function.BiConsumer<String, Stream<DynamicNode>> group = (name, probes) -> {
            List<DynamicNode> p = probes.toList();
            if (!p.isEmpty()) {
                out.add(DynamicContainer.dynamicContainer(name, p));
            }
        };
        group.accept("http1Framing", http1Framing(g));
        group.accept("http1ValidSpellings", http1ValidSpellings(g));
        group.accept("http1AbsoluteFormAgainstHost", http1AbsoluteFormAgainstHost(g));
        group.accept("http2Floods", http2Floods(g));
        group.accept("http2Malformed", http2Malformed(g));
        group.accept("http2Abuses", http2Abuses(g));
        Waits waits = new Waits(g);
        group.accept("slowClients", slowClients(g, waits));
        group.accept("tls", tls(g, waits));
        group.accept("tlsRecords", tlsRecords(g, waits));
        return out.stream();
    }

    /** At most this many lanes of one gateway at once: each holds a connection or two and its bystander's. */
    static final int WAITS_AT_ONCE = 5;

    /**
     * One gateway's probes that mostly wait (slowloris, a slow body, a reader that never reads, a TLS handshake that
     * stalls or drips): in lanes side by side, each lane named by what it holds, so that at most {@value
     * #WAITS_AT_ONCE} lanes' connections (a probe uses at most 3, and its bystander one) stay well under the
     * listener's max-connections ({@value ProbeListeners#MAX_CONNECTIONS}). Nothing else a probe asserts on is
     * shared: each probe's connection and answer are its own, and the bystanders are one per probe.
     */
    static final class Waits {
        final ProbeLanes lanes = new ProbeLanes(WAITS_AT_ONCE, java.time.Duration.ofMinutes(3));
        private final java.util.Map<String, ProbeLanes.Lane> byName = new java.util.LinkedHashMap<>();
        private final Gateway gateway;

        Waits(Gateway gateway) {
            this.gateway = gateway;
        }

        /** The lane {@code name} of this gateway (its thread and printed times say both). */
        ProbeLanes.Lane lane(String name) {
            return byName.computeIfAbsent(name, n -> lanes.lane(gateway + " " + n));
        }
    }

    // ------------------------------------------------------------------------------------------------- HTTP/1.1

    /** A request the gateway must answer with {@code status}; a {@code HIDDEN} request after it must never be served. */
    record H1Case(String name, int status, boolean closes, String raw) {
    }

    private static final String HIDDEN = "GET /hidden-%d HTTP/1.1\r\nHost: h\r\n\r\n";

    static List<H1Case> h1Cases() {
        String post = "POST /refused HTTP/1.1\r\nHost: h\r\n";
        List<H1Case> c = new ArrayList<>(List.of(
                new H1Case("CL and TE together", 400, true, post + "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
                new H1Case("TE: chunked, identity", 400, true, post + "Transfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n"),
                new H1Case("TE: xchunked", 400, true, post + "Transfer-Encoding: xchunked\r\n\r\n0\r\n\r\n"),
                new H1Case("TE: chunked twice in one field", 400, true, post + "Transfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n"),
                new H1Case("TE twice (two fields)", 400, true, post + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
                new H1Case("TE with a space before the colon", 400, true, post + "Transfer-Encoding : chunked\r\n\r\n0\r\n\r\n"),
                new H1Case("TE with a vertical tab", 400, true, post + "Transfer-Encoding: \u000bchunked\r\n\r\n0\r\n\r\n"),
                new H1Case("TE: gzip, chunked", 501, true, post + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"),
                new H1Case("two differing Content-Length", 400, true, post + "Content-Length: 0\r\nContent-Length: 5\r\n\r\n"),
                new H1Case("Content-Length with a plus sign", 400, true, post + "Content-Length: +0\r\n\r\n"),
                new H1Case("Content-Length with a minus sign", 400, true, post + "Content-Length: -0\r\n\r\n"),
                new H1Case("Content-Length with a space inside", 400, true, post + "Content-Length: 1 0\r\n\r\n"),
                new H1Case("Content-Length in hex", 400, true, post + "Content-Length: 0x0\r\n\r\n"),
                new H1Case("Content-Length over 2^63", 400, true, post + "Content-Length: 99999999999999999999\r\n\r\n"),
                new H1Case("chunk size over 64 bits", 400, true, post + "Transfer-Encoding: chunked\r\n\r\nffffffffffffffff1\r\nx\r\n0\r\n\r\n"),
                new H1Case("chunk size of 16 f (wraps to -1)", 400, true, post + "Transfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\nx\r\n0\r\n\r\n"),
                new H1Case("chunk extension of 64 KiB", 400, true, post + "Transfer-Encoding: chunked\r\n\r\n1;e=" + "x".repeat(65536) + "\r\nx\r\n0\r\n\r\n"),
                // Session 60: the trailer section is parsed as strictly as the head (the body is relayed as it
                // comes, so the origin has the head and the data already: it never gets the last chunk)
                new H1Case("bare CR in a trailer value", 400, true, post + "Transfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\nX-T: a\rb\r\n\r\n"),
                new H1Case("obs-fold in the trailers", 400, true, post + "Transfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\nX-T: a\r\n b\r\n\r\n"),
                new H1Case("a request line in the trailers", 400, true, post + "Transfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\nGET /smuggled HTTP/1.1\r\n\r\n"),
                new H1Case("bare LF inside the head", 400, true, "GET /refused HTTP/1.1\r\nHost: h\nX-A: 1\r\n\r\n"),
                new H1Case("bare CR inside a value", 400, true, "GET /refused HTTP/1.1\r\nHost: h\r\nX-A: a\rb\r\n\r\n"),
                new H1Case("obs-fold", 400, true, "GET /refused HTTP/1.1\r\nHost: h\r\nX-A: a\r\n b\r\n\r\n"),
                new H1Case("NUL in a value", 400, true, "GET /refused HTTP/1.1\r\nHost: h\r\nX-A: a\0b\r\n\r\n"),
                new H1Case("ESC in a value", 400, true, "GET /refused HTTP/1.1\r\nHost: h\r\nX-A: a\u001bb\r\n\r\n"),
                new H1Case("DEL in a value", 400, true, "GET /refused HTTP/1.1\r\nHost: h\r\nX-A: a\u007fb\r\n\r\n"),
                new H1Case("space before the colon", 400, true, "GET /refused HTTP/1.1\r\nHost: h\r\nX-A : 1\r\n\r\n"),
                new H1Case("empty field name", 400, true, "GET /refused HTTP/1.1\r\nHost: h\r\n: v\r\n\r\n"),
                new H1Case("no Host", 400, true, "GET /refused HTTP/1.1\r\nX-A: 1\r\n\r\n"),
                new H1Case("two Host fields", 400, true, "GET /refused HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
                new H1Case("Host with userinfo", 400, true, "GET /refused HTTP/1.1\r\nHost: u@h\r\n\r\n"),
                new H1Case("request line of 16 KiB", 414, true, "GET /" + "a".repeat(16 * 1024) + " HTTP/1.1\r\nHost: h\r\n\r\n"),
                new H1Case("too many header fields", 431, true, "GET /refused HTTP/1.1\r\nHost: h\r\n" + "X-F: 1\r\n".repeat(150) + "\r\n"),
                new H1Case("header section over 64 KiB", 431, true, "GET /refused HTTP/1.1\r\nHost: h\r\nX-Big: " + "b".repeat(70_000) + "\r\n\r\n"),
                new H1Case("HTTP/1.0 with chunked", 400, true, "POST /refused HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
                new H1Case("Expect other than 100-continue", 417, true, "GET /refused HTTP/1.1\r\nHost: h\r\nExpect: 100-continue-please\r\n\r\n"),
                new H1Case("HTTP/2's preface after ALPN chose http/1.1", 505, true, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")));
        return c;
    }

    Stream<DynamicNode> http1Framing(Gateway g) {
        return perKind(g, Kind.http1(), k -> h1Cases().stream()
                // over plain HTTP/1.1 the preface is h2c by prior knowledge; over TLS HTTP/2 is chosen by ALPN only
                .filter(c -> k.gateway.tls() || !c.name().startsWith("HTTP/2's preface"))
                .map(c -> probe(k, c.name() + " -> " + c.status(), kind -> h1Refused(kind, c))).toList());
    }

    private static void h1Refused(Kind k, H1Case c) throws Exception {
        int id = IDS.incrementAndGet();
        String hidden = "/hidden-" + id;
        try (RawClient client = listeners.h1(k)) {
            long t0 = System.nanoTime();
            // Sent from another thread: a gateway that answers before the whole request arrived (a 64 KiB chunk
            // line, a 70 KB head) may close while the client still writes, and the answer must be read anyway.
            Thread writer = Thread.ofVirtual().start(() -> {
                try {
                    client.send(c.raw() + HIDDEN.formatted(id));
                } catch (IOException e) {
                    // closed by the gateway mid-write: the answer is what counts
                }
            });
            RawClient.Response r = client.read();
            writer.join(10_000);
            assertThat(r.status()).as("status (%s)", r.statusLine()).isEqualTo(c.status());
            if (c.closes()) {
                assertThat(r.header("Connection")).as("Connection").isEqualTo("close");
                assertThat(client.isClosedByPeer()).as("closed after the answer").isTrue();
            }
            assertThat((System.nanoTime() - t0) / 1_000_000).as("ms to the answer and the close").isLessThan(10_000);
        }
        assertThat(listeners.origin(k).received()).as("what the origin got").noneMatch(r -> r.target().equals(hidden)
                || r.target().startsWith("/refused"));
    }

    /** Transfer-Encoding spellings that are chunked (OWS around it, any case): read as chunked, the body relayed. */
    Stream<DynamicNode> http1ValidSpellings(Gateway g) {
        List<String[]> spellings = List.of(
                new String[] {"TE with a tab after the colon", "Transfer-Encoding:\tchunked"},
                new String[] {"TE with trailing whitespace", "Transfer-Encoding: chunked \t"},
                new String[] {"TE in upper case", "TRANSFER-ENCODING: CHUNKED"},
                new String[] {"Content-Length with leading zeros", "Content-Length: 0005"},
                new String[] {"Content-Length with whitespace around it", "Content-Length: \t5 "});
        return perKind(g, Kind.http1(), k -> spellings.stream().map(s -> probe(k, s[0] + " -> 200", kind -> {
            int id = IDS.incrementAndGet();
            String body = s[1].startsWith("Content") ? "hello" : "5\r\nhello\r\n0\r\n\r\n";
            try (RawClient client = listeners.h1(kind)) {
                RawClient.Response r = client.send("POST /spelling-" + id + " HTTP/1.1\r\nHost: h\r\n" + s[1]
                        + "\r\n\r\n" + body + "GET /second-" + id + " HTTP/1.1\r\nHost: h\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(client.read().status()).as("the pipelined second request").isEqualTo(200);
            }
            TestOrigin.Recorded got = listeners.origin(k).received().stream()
                    .filter(r -> r.target().equals("/spelling-" + id)).findFirst().orElseThrow();
            assertThat(got.bodyText()).isEqualTo("hello");
        })).toList());
    }

    /** RFC 9112 §3.2.2: with an absolute-form target the Host field is ignored; the origin must see the target's. */
    Stream<DynamicNode> http1AbsoluteFormAgainstHost(Gateway g) {
        return perKind(g, Kind.http1(), k -> List.of(probe(k, "absolute-form naming another host than Host", kind -> {
            int id = IDS.incrementAndGet();
            try (RawClient client = listeners.h1(kind)) {
                RawClient.Response r = client.send("GET http://target.example/abs-" + id
                        + " HTTP/1.1\r\nHost: field.example\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(200);
            }
            TestOrigin.Recorded got = listeners.origin(k).received().stream()
                    .filter(r -> r.target().equals("/abs-" + id)).findFirst().orElseThrow();
            assertThat(got.header("Host")).as("Host the origin saw").isEqualTo("target.example");
            assertThat(got.headers("X-Forwarded-Host")).as("X-Forwarded-Host").containsOnly("target.example");
        })));
    }

    // ------------------------------------------------------------------------------------------------- HTTP/2

    Stream<DynamicNode> http2Floods(Gateway g) {
        return perKind(g, Kind.http2s(), k -> List.of(
                probe(k, "rapid reset (CVE-2023-44487) -> GOAWAY ENHANCE_YOUR_CALM", kind -> flood(kind, c -> {
                    for (int s = 1; s < 4000; s += 2) {
                        c.get(s, "/rr");
                        c.rst(s, Frames.CANCEL);
                    }
                })),
                probe(k, "CONTINUATION flood (CVE-2024-27316) -> GOAWAY ENHANCE_YOUR_CALM", kind -> flood(kind, c -> {
                    c.frame(Frames.HEADERS, 0, 1, RawH2Client.request("GET", "/cont"));
                    byte[] junk = RawH2Client.block("x-filler", "y".repeat(4000));
                    for (int i = 0; i < 10_000; i++) {
                        c.frame(Frames.CONTINUATION, 0, 1, junk);
                    }
                })),
                probe(k, "SETTINGS flood -> GOAWAY ENHANCE_YOUR_CALM", kind -> flood(kind, c -> {
                    for (int i = 0; i < 5000; i++) {
                        c.settings(Frames.SETTINGS_INITIAL_WINDOW_SIZE, 1000 + i);
                    }
                })),
                probe(k, "PING flood -> GOAWAY ENHANCE_YOUR_CALM", kind -> flood(kind, c -> {
                    for (int i = 0; i < 5000; i++) {
                        c.ping(i);
                    }
                })),
                probe(k, "empty DATA flood (CVE-2019-9518) -> GOAWAY ENHANCE_YOUR_CALM", kind -> flood(kind, c -> {
                    c.headers(1, RawH2Client.request("POST", "/empty"), false);
                    for (int i = 0; i < 100_000; i++) {
                        c.data(1, new byte[0], false);
                    }
                })),
                probe(k, "PRIORITY flood (CVE-2019-9513) -> GOAWAY ENHANCE_YOUR_CALM", kind -> flood(kind, c -> {
                    byte[] p = new byte[5];
                    for (int i = 0; i < 100_000; i++) {
                        FrameWriter.putInt(p, 0, 3 + 2 * (i % 1000));
                        c.frame(Frames.PRIORITY, 0, 1 + 2 * (i % 1000), p);
                    }
                })),
                probe(k, "resets the server is made to send (MadeYouReset, CVE-2025-8671) -> GOAWAY ENHANCE_YOUR_CALM",
                        kind -> flood(kind, c -> {
                            for (int s = 1; s < 4000; s += 2) {
                                c.get(s, "/myr");
                                c.windowUpdate(s, 0); // a stream error: the server resets the stream itself
                            }
                        })),
                probe(k, "WINDOW_UPDATE flood, valid increments -> GOAWAY ENHANCE_YOUR_CALM", kind -> flood(kind, c -> {
                    for (int i = 0; i < 10_000; i++) {
                        c.windowUpdate(0, 1);
                    }
                })),
                probe(k, "DATA on a stream closed long ago, again and again -> GOAWAY ENHANCE_YOUR_CALM",
                        kind -> flood(kind, c -> {
                            c.get(1, "/closed");
                            assertThat(c.body(1)).isEqualTo("hello from origin");
                            // Frames of 1,000 bytes: should the gateway have reset the stream itself (a race with its
                            // end), what it ignores is bounded by the stream's window, 65,535 bytes.
                            for (int i = 0; i < 5000; i++) {
                                c.data(1, new byte[1000], false);
                            }
                        })),
                probe(k, "WINDOW_UPDATE of 0 on a closed stream, again and again -> GOAWAY ENHANCE_YOUR_CALM",
                        kind -> flood(kind, c -> {
                            c.get(1, "/closed");
                            assertThat(c.body(1)).isEqualTo("hello from origin");
                            for (int i = 0; i < 5000; i++) {
                                c.windowUpdate(1, 0); // a stream error on a closed stream: RST_STREAM each
                            }
                        })),
                probe(k, "streams past SETTINGS_MAX_CONCURRENT_STREAMS, again and again -> GOAWAY ENHANCE_YOUR_CALM",
                        kind -> flood(kind, c -> {
                            // every slot held by an upload that never ends, then 2,000 more: REFUSED_STREAM each
                            int s = 1;
                            for (; s < 2 * ProbeListeners.MAX_CONCURRENT_STREAMS; s += 2) {
                                c.headers(s, RawH2Client.request("POST", "/held"), false);
                            }
                            for (int i = 0; i < 2000; i++, s += 2) {
                                c.headers(s, RawH2Client.request("GET", "/refused"), true);
                            }
                        })),
                probe(k, "malformed requests, again and again -> GOAWAY ENHANCE_YOUR_CALM", kind -> flood(kind, c -> {
                    for (int s = 1; s < 4000; s += 2) { // RST_STREAM PROTOCOL_ERROR each; the origin sees none
                        c.headers(s, RawH2Client.request("GET", "/m", "X-Upper", "1"), true);
                    }
                }))));
    }

    /** Runs a flood on a fresh connection; the gateway must end it with GOAWAY ENHANCE_YOUR_CALM within 10 s. */
    private static void flood(Kind k, Flood f) throws Exception {
        try (RawH2Client c = listeners.h2(k)) {
            long t0 = System.nanoTime();
            try {
                f.run(c);
            } catch (IOException e) {
                // the gateway cut the connection mid-flood: expected
            }
            RawH2Client.Frame goAway = c.awaitGoAway();
            assertThat(goAway).as("GOAWAY (the connection ended by %s)", c.endedBy()).isNotNull();
            assertThat(Frames.errorName(goAway.errorCode())).as("GOAWAY's code (%s)", goAway.debugText())
                    .isEqualTo("ENHANCE_YOUR_CALM");
            assertThat((System.nanoTime() - t0) / 1_000_000).as("ms to GOAWAY").isLessThan(20_000);
        }
    }

    interface Flood {
        void run(RawH2Client c) throws IOException;
    }

    /** A malformed request: its stream is reset with PROTOCOL_ERROR, the connection serves on, the origin sees none. */
    record H2Case(String name, byte[] block, byte[] data, boolean endStreamOnHeaders, byte[] trailers) {
        H2Case(String name, byte[] block, byte[] data, boolean endStreamOnHeaders) {
            this(name, block, data, endStreamOnHeaders, null);
        }
    }

    static List<H2Case> h2Malformed() {
        return List.of(
                new H2Case(":path empty", RawH2Client.block(":method", "GET", ":scheme", "http", ":path", "", ":authority", "t"), null, true),
                new H2Case(":authority with userinfo", RawH2Client.block(":method", "GET", ":scheme", "http", ":path", "/m", ":authority", "user@t"), null, true),
                new H2Case("no :scheme", RawH2Client.block(":method", "GET", ":path", "/m", ":authority", "t"), null, true),
                new H2Case("connection field", RawH2Client.request("GET", "/m", "connection", "keep-alive"), null, true),
                new H2Case("transfer-encoding field", RawH2Client.request("GET", "/m", "transfer-encoding", "chunked"), null, true),
                new H2Case("keep-alive field", RawH2Client.request("GET", "/m", "keep-alive", "timeout=5"), null, true),
                new H2Case("upgrade field", RawH2Client.request("GET", "/m", "upgrade", "h2c"), null, true),
                new H2Case("te other than trailers", RawH2Client.request("GET", "/m", "te", "gzip"), null, true),
                new H2Case("upper-case field name", RawH2Client.request("GET", "/m", "X-Upper", "1"), null, true),
                new H2Case("pseudo-header after a regular one", RawH2Client.block(":method", "GET", ":scheme", "http", "x-a", "1", ":path", "/m", ":authority", "t"), null, true),
                new H2Case("NUL in a value", RawH2Client.request("GET", "/m", "x-a", "a\0b"), null, true),
                // RFC 9110 5.1: a field name is a token, one character at least; relayed to an HTTP/1.1 origin, an
                // empty name would be a line ": v", which origins read differently
                new H2Case("empty field name", RawH2Client.request("GET", "/m", "", "v"), null, true),
                new H2Case("1,000 fields of empty name and value (CVE-2019-9516)", RawH2Client.request("GET", "/m",
                        java.util.Collections.nCopies(2000, "").toArray(String[]::new)), null, true),
                new H2Case("CR LF in a value", RawH2Client.request("GET", "/m", "x-a", "a\r\nx-b: c"), null, true),
                new H2Case("content-length above the DATA", RawH2Client.request("POST", "/m", "content-length", "10"), "abc".getBytes(), false),
                new H2Case("content-length below the DATA", RawH2Client.request("POST", "/m", "content-length", "2"), "abcdef".getBytes(), false),
                // Session 60: trailers are checked as the head is; relayed to an HTTP/1.1 origin as chunked trailer
                // lines, a CR LF in one would end the message early and smuggle the rest
                new H2Case("CR LF in a trailer value", RawH2Client.request("POST", "/m"), "abc".getBytes(), false,
                        RawH2Client.block("x-t", "a\r\n\r\nGET /smuggled HTTP/1.1\r\nhost: t\r\n")),
                new H2Case("a pseudo-header in the trailers", RawH2Client.request("POST", "/m"), "abc".getBytes(), false,
                        RawH2Client.block(":path", "/smuggled")),
                new H2Case("an upper-case trailer name", RawH2Client.request("POST", "/m"), "abc".getBytes(), false,
                        RawH2Client.block("X-T", "1")));
    }

    Stream<DynamicNode> http2Malformed(Gateway g) {
        return perKind(g, Kind.http2s(), k -> {
            List<DynamicTest> t = new ArrayList<>(h2Malformed().stream().map(c -> probe(k, c.name()
                    + " -> RST_STREAM PROTOCOL_ERROR", kind -> h2Refused(kind, c))).toList());
            t.add(probe(k, "te: trailers -> 200", kind -> {
                try (RawH2Client c = listeners.h2(kind)) {
                    c.headers(1, RawH2Client.request("GET", "/te-trailers", "te", "trailers"), true);
                    assertThat(c.fields(c.await(f -> f.is(Frames.HEADERS, 1)))).containsEntry(":status", "200");
                }
            }));
            return t;
        });
    }

    private static void h2Refused(Kind k, H2Case m) throws Exception {
        int before = (int) listeners.origin(k).received().stream().filter(r -> r.target().startsWith("/m")).count();
        try (RawH2Client c = listeners.h2(k)) {
            c.headers(1, m.block(), m.endStreamOnHeaders());
            if (m.data() != null) {
                c.data(1, m.data(), m.trailers() == null);
            }
            if (m.trailers() != null) {
                c.headers(1, m.trailers(), true);
            }
            RawH2Client.Frame reset = c.await(f -> f.stream() == 1 && (f.type() == Frames.RST_STREAM
                    || f.type() == Frames.HEADERS) || f.type() == Frames.GOAWAY);
            assertThat(reset).as("an answer on stream 1").isNotNull();
            assertThat(reset.type()).as("frame type (a HEADERS would be a response: %s)",
                    reset.type() == Frames.HEADERS ? c.fields(reset) : "").isEqualTo(Frames.RST_STREAM);
            assertThat(Frames.errorName(reset.errorCode())).isEqualTo("PROTOCOL_ERROR");
            c.get(3, "/after-malformed");
            assertThat(c.fields(c.await(f -> f.is(Frames.HEADERS, 3)))).as("the next stream")
                    .containsEntry(":status", "200");
        }
        assertThat(listeners.origin(k).received().stream().filter(r -> r.target().startsWith("/m")).count())
                .as("malformed requests that reached the origin").isEqualTo(before);
    }

    Stream<DynamicNode> http2Abuses(Gateway g) {
        return perKind(g, Kind.http2s(), k -> List.of(
                probe(k, "HPACK table size update over SETTINGS_HEADER_TABLE_SIZE -> GOAWAY COMPRESSION_ERROR", kind -> {
                    try (RawH2Client c = listeners.h2(kind)) {
                        HeaderBlock b = new HeaderBlock(16);
                        HpackEncoder.integer(b, 0x20, 5, 1 << 30);
                        byte[] get = RawH2Client.request("GET", "/tsu");
                        b.write(get, 0, get.length);
                        c.headers(1, b.toByteArray(), true);
                        RawH2Client.Frame goAway = c.awaitGoAway();
                        assertThat(goAway).isNotNull();
                        assertThat(Frames.errorName(goAway.errorCode())).isEqualTo("COMPRESSION_ERROR");
                    }
                }),
                probe(k, "HPACK bomb (indexed references far over the list size) -> 431, serves on", kind -> {
                    try (RawH2Client c = listeners.h2(kind)) {
                        HeaderBlock b = new HeaderBlock(64);
                        byte[] get = RawH2Client.request("GET", "/bomb");
                        b.write(get, 0, get.length);
                        HpackEncoder.integer(b, 0x40, 6, 0);
                        HpackEncoder.string(b, "x-bomb");
                        HpackEncoder.string(b, "z".repeat(4000));
                        for (int i = 0; i < 2000; i++) {
                            HpackEncoder.integer(b, 0x80, 7, StaticTable.SIZE + 1);
                        }
                        c.headers(1, b.toByteArray(), true);
                        assertThat(c.fields(c.await(f -> f.is(Frames.HEADERS, 1)))).containsEntry(":status", "431");
                        c.get(3, "/after-bomb");
                        assertThat(c.fields(c.await(f -> f.is(Frames.HEADERS, 3)))).containsEntry(":status", "200");
                    }
                }),
                probe(k, "a stream past SETTINGS_MAX_CONCURRENT_STREAMS -> RST_STREAM REFUSED_STREAM", kind -> {
                    try (RawH2Client c = listeners.h2(kind)) {
                        int past = 1 + 2 * ProbeListeners.MAX_CONCURRENT_STREAMS;
                        c.inOneWrite(() -> {
                            for (int s = 1; s <= past; s += 2) {
                                c.headers(s, RawH2Client.request("POST", "/open"), false);
                            }
                        });
                        RawH2Client.Frame refused = c.await(f -> f.type() == Frames.RST_STREAM);
                        assertThat(refused.stream()).isEqualTo(past);
                        assertThat(Frames.errorName(refused.errorCode())).isEqualTo("REFUSED_STREAM");
                    }
                }),
                probe(k, "DATA and trailers in flight on a stream the gateway refused -> ignored, no RST_STREAM per"
                        + " frame, no GOAWAY", kind -> {
                    try (RawH2Client c = listeners.h2(kind)) {
                        int past = 1 + 2 * ProbeListeners.MAX_CONCURRENT_STREAMS;
                        c.inOneWrite(() -> {
                            for (int s = 1; s <= past; s += 2) {
                                c.headers(s, RawH2Client.request("POST", "/open"), false);
                            }
                            for (int i = 0; i < 4; i++) {
                                c.data(past, new byte[16_000], false); // within the 65,535 it may send unasked
                            }
                            // and its trailers: a connection error (STREAM_CLOSED) before session 43
                            c.headers(past, RawH2Client.block("x-checksum", "1"), true);
                            c.ping(42);
                        });
                        List<String> resets = new ArrayList<>();
                        RawH2Client.Frame ack = c.await(f -> {
                            if (f.is(Frames.RST_STREAM, past)) {
                                resets.add(Frames.errorName(f.errorCode()));
                            }
                            return f.type() == Frames.PING || f.type() == Frames.GOAWAY;
                        });
                        assertThat(ack).as("PING ACK after the DATA and trailers").isNotNull();
                        assertThat(ack.type()).as("GOAWAY %s", ack.type() == Frames.GOAWAY
                                ? Frames.errorName(ack.errorCode()) + " " + ack.debugText() : "")
                                .isEqualTo(Frames.PING);
                        assertThat(resets).as("RST_STREAM on the refused stream (RFC 9113 §5.1: DATA in flight after"
                                + " it is ignored)").containsExactly("REFUSED_STREAM");
                    }
                }),
                probe(k, "a client that credits every DATA frame (2 WINDOW_UPDATEs each) downloads 32 MiB", kind -> {
                    try (RawH2Client c = listeners.h2(kind)) {
                        c.get(1, "/big");
                        long got = 0;
                        while (true) {
                            RawH2Client.Frame f = c.await(x -> x.stream() == 1 && x.type() != Frames.HEADERS
                                    || x.type() == Frames.GOAWAY);
                            assertThat(f).as("the download's frames (ended by %s)", c.endedBy()).isNotNull();
                            assertThat(f.type()).as("frame type (GOAWAY %s?)", f.type() == Frames.GOAWAY
                                    ? f.debugText() : "").isEqualTo(Frames.DATA);
                            got += f.payload().length;
                            if (f.payload().length > 0) {
                                c.windowUpdate(0, f.payload().length);
                                c.windowUpdate(1, f.payload().length);
                            }
                            if (f.endStream()) {
                                break;
                            }
                        }
                        assertThat(got).isEqualTo(ProbeListeners.BIG);
                    }
                }),
                probe(k, "zero window held (slow reader) -> RST_STREAM CANCEL after read-timeout, serves on", kind -> {
                    try (RawH2Client c = listeners.h2(kind, Frames.SETTINGS_INITIAL_WINDOW_SIZE, 0)) {
                        long t0 = System.nanoTime();
                        c.get(1, "/stall");
                        assertThat(c.fields(c.await(f -> f.is(Frames.HEADERS, 1)))).containsEntry(":status", "200");
                        RawH2Client.Frame reset = c.await(f -> f.stream() == 1 && f.type() != Frames.HEADERS);
                        assertThat(reset.type()).isEqualTo(Frames.RST_STREAM);
                        assertThat(Frames.errorName(reset.errorCode())).isEqualTo("CANCEL");
                        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(ProbeListeners.READ_TIMEOUT_MS + 8000);
                        c.settings(Frames.SETTINGS_INITIAL_WINDOW_SIZE, 65_535);
                        c.get(3, "/next");
                        assertThat(c.body(3)).isEqualTo("hello from origin");
                    }
                }),
                // Session 57: the same on every stream the connection may have at once, each asking 32 MiB: each is
                // cancelled at read-timeout (what the gateway holds meanwhile is its relay's buffer per stream, not
                // the answers), the origin's connections are let go, and the connection serves on.
                probe(k, "zero window on " + ProbeListeners.MAX_CONCURRENT_STREAMS + " streams of 32 MiB -> each RST_STREAM CANCEL"
                        + " after read-timeout, serves on", kind -> {
                    try (RawH2Client c = listeners.h2(kind, Frames.SETTINGS_INITIAL_WINDOW_SIZE, 0)) {
                        long t0 = System.nanoTime();
                        java.util.Set<Integer> open = new java.util.TreeSet<>();
                        for (int i = 0; i < ProbeListeners.MAX_CONCURRENT_STREAMS; i++) {
                            c.get(1 + 2 * i, "/big");
                            open.add(1 + 2 * i);
                        }
                        java.util.Map<String, Integer> ends = new java.util.TreeMap<>();
                        while (!open.isEmpty()) {
                            RawH2Client.Frame f = c.await(x -> open.contains(x.stream()) && x.type() != Frames.HEADERS);
                            assertThat(f.type()).as("stream %d: %s", f.stream(), f).isEqualTo(Frames.RST_STREAM);
                            ends.merge(Frames.errorName(f.errorCode()), 1, Integer::sum);
                            open.remove(f.stream());
                        }
                        long ms = (System.nanoTime() - t0) / 1_000_000;
                        System.out.printf("PROBE zero window on %d streams %s: %s in %d ms%n", ProbeListeners.MAX_CONCURRENT_STREAMS,
                                kind.label, ends, ms);
                        assertThat(ends).as("how the streams ended").containsOnlyKeys("CANCEL");
                        assertThat(ms).isLessThan(ProbeListeners.READ_TIMEOUT_MS + 8000);
                        c.settings(Frames.SETTINGS_INITIAL_WINDOW_SIZE, 65_535);
                        int next = 1 + 2 * ProbeListeners.MAX_CONCURRENT_STREAMS;
                        c.get(next, "/next");
                        assertThat(c.body(next)).isEqualTo("hello from origin");
                    }
                })));
    }

    // ------------------------------------------------------------------------------------------------- slow clients

    Stream<DynamicNode> slowClients(Gateway g, Waits waits) {
        return perKind(g, List.of(Kind.values()), k -> Stream.of(
                probe(k, "slowloris head -> " + (k.http2 ? "closed" : "408"), slowHead(), waits.lane("slow"), null),
                probe(k, "slow body -> " + (k.http2 ? "RST_STREAM or 408" : "408"), HostileProbeTest::slowBody,
                        waits.lane("slow"), null),
                probe(k, "never reads a 32 MiB response -> closed at the write deadline", HostileProbeTest::neverReads,
                        waits.lane("never reads " + k.label), null),
                // idle TCP connections are the same to the h1 and h2 kinds of one gateway: once per gateway; it holds
                // every connection, so it waits for the lanes (which then cannot start again: they start only once)
                k.http2 ? null : probe(k, "idle connections half again over max-connections -> each closed at "
                        + "header-timeout", HostileProbeTest::idleBeyondTheLimit, null, waits.lanes))
                .filter(java.util.Objects::nonNull).toList());
    }

    /**
     * Connections that send nothing, half again as many as max-connections: those accepted are closed at
     * header-timeout (before a request, or before the ClientHello), those waiting in the backlog are accepted as
     * they go and closed in their turn; the bystander waits at most one round.
     */
    private static void idleBeyondTheLimit(Kind k) throws Exception {
        List<Socket> idle = new ArrayList<>();
        try {
            long t0 = System.nanoTime();
            for (int i = 0; i < ProbeListeners.MAX_CONNECTIONS * 3 / 2; i++) {
                idle.add(listeners.tcp(k));
            }
            for (Socket s : idle) {
                s.setSoTimeout(4 * ProbeListeners.HEADER_TIMEOUT_MS + 10_000);
                try {
                    while (s.getInputStream().read() >= 0) {
                        // an answer (408, an alert) before the close: read to the end
                    }
                } catch (java.net.SocketException e) {
                    // reset: also a close (a timeout is not a SocketException: it fails the probe)
                }
            }
            assertThat((System.nanoTime() - t0) / 1_000_000).as("ms until every idle connection was closed")
                    .isLessThan(3L * ProbeListeners.HEADER_TIMEOUT_MS + 10_000);
        } finally {
            for (Socket s : idle) {
                s.close();
            }
        }
    }

    private static Probe slowHead() {
        return k -> {
            long t0 = System.nanoTime();
            if (k.http2) {
                // the preface and SETTINGS, then a HEADERS frame's first bytes and nothing more
                try (RawH2Client c = listeners.h2(k)) {
                    byte[] block = RawH2Client.request("GET", "/slow");
                    c.raw(new byte[] {0, 0, (byte) block.length, Frames.HEADERS});
                    assertThat(c.isClosedByPeer()).as("closed").isTrue();
                }
            } else {
                try (RawClient c = listeners.h1(k)) {
                    String head = "GET /slow HTTP/1.1\r\nHost: h\r\nX-Pad: " + "p".repeat(200) + "\r\n\r\n";
                    Thread trickler = Thread.ofVirtual().start(() -> {
                        try {
                            for (int i = 0; i < head.length(); i++) {
                                c.send(head.substring(i, i + 1));
                                Thread.sleep(100);
                            }
                        } catch (Exception e) {
                            // closed by the gateway: expected
                        }
                    });
                    assertThat(c.read().status()).isEqualTo(408);
                    trickler.interrupt();
                }
            }
            assertThat((System.nanoTime() - t0) / 1_000_000).as("ms to the end")
                    .isLessThan(ProbeListeners.IDLE_TIMEOUT_MS + 8000);
        };
    }

    private static void slowBody(Kind k) throws Exception {
        long t0 = System.nanoTime();
        if (k.http2) {
            try (RawH2Client c = listeners.h2(k)) {
                c.headers(1, RawH2Client.request("POST", "/slow-body", "content-length", "1000"), false);
                c.data(1, "0123456789".getBytes(), false);
                RawH2Client.Frame f = c.await(x -> x.stream() == 1 || x.type() == Frames.GOAWAY);
                assertThat(f).as("an answer on stream 1").isNotNull();
                if (f.type() == Frames.HEADERS) {
                    assertThat(c.fields(f)).containsEntry(":status", "408");
                } else {
                    assertThat(f.type()).as("frame type").isEqualTo(Frames.RST_STREAM);
                }
            }
        } else {
            try (RawClient c = listeners.h1(k)) {
                c.send("POST /slow-body HTTP/1.1\r\nHost: h\r\nContent-Length: 1000\r\n\r\n0123456789");
                assertThat(c.read().status()).isEqualTo(408);
            }
        }
        assertThat((System.nanoTime() - t0) / 1_000_000).as("ms to the answer")
                .isLessThan(ProbeListeners.READ_TIMEOUT_MS + 8000);
    }

    private static void neverReads(Kind k) throws Exception {
        Socket s;
        if (k.http2) {
            RawH2Client c = listeners.h2(k, Frames.SETTINGS_INITIAL_WINDOW_SIZE, Integer.MAX_VALUE);
            c.windowUpdate(0, Integer.MAX_VALUE - 65_535);
            c.get(1, "/big");
            s = c.socket();
        } else {
            RawClient c = listeners.h1(k);
            c.send("GET /big HTTP/1.1\r\nHost: h\r\n\r\n");
            s = c.socket();
        }
        try (s) {
            // Read nothing for the write deadline and more, then drain: the gateway must have given up first.
            Thread.sleep(ProbeListeners.READ_TIMEOUT_MS * 3L);
            long got = 0;
            long t1 = System.nanoTime();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[65536];
            s.setSoTimeout(5000);
            try {
                for (int n; (n = in.read(buf)) > 0; ) {
                    got += n;
                }
            } catch (IOException e) {
                // reset: also a close
            }
            System.out.printf("PROBE neverReads %s: %d bytes, drained in %d ms%n", k.label, got,
                    (System.nanoTime() - t1) / 1_000_000);
            assertThat(got).as("bytes read before the end").isLessThan(ProbeListeners.BIG);
        }
    }

    // ------------------------------------------------------------------------------------------------- TLS

    Stream<DynamicNode> tls(Gateway g, Waits waits) {
        return perKind(g, Kind.tls(), k -> List.of(
                probe(k, "TCP open, no ClientHello -> closed within header-timeout", kind -> {
                    try (Socket s = listeners.tcp(kind)) {
                        long t0 = System.nanoTime();
                        assertThat(s.getInputStream().read()).as("EOF").isEqualTo(-1);
                        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(ProbeListeners.HEADER_TIMEOUT_MS + 3000);
                    }
                }, waits.lane("tls " + k.label), null),
                probe(k, "ClientHello dripped a byte every 100 ms -> closed within twice header-timeout", kind -> {
                    byte[] hello = clientHello(listeners.pki.clientContext(null));
                    try (Socket s = listeners.tcp(kind)) {
                        long t0 = System.nanoTime();
                        Thread dripper = Thread.ofVirtual().start(() -> {
                            try {
                                OutputStream out = s.getOutputStream();
                                for (byte b : hello) {
                                    out.write(b);
                                    out.flush();
                                    Thread.sleep(100);
                                }
                            } catch (Exception e) {
                                // closed: expected
                            }
                        });
                        int first;
                        try {
                            first = s.getInputStream().read();
                        } catch (IOException e) {
                            first = -1;
                        }
                        dripper.interrupt();
                        assertThat(first).as("EOF or an alert, not a ServerHello").isIn(-1, 0x15);
                        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(2L * ProbeListeners.HEADER_TIMEOUT_MS + 3000);
                    }
                }, waits.lane("tls " + k.label), null),
                probe(k, "an ALPN id the server does not offer -> no_application_protocol or HTTP/1.1", kind -> {
                    SSLSocket s;
                    try {
                        s = listeners.tls(kind, "localhost", "spdy/3.1");
                    } catch (javax.net.ssl.SSLHandshakeException e) {
                        assertThat(e.getMessage()).contains("no_application_protocol");
                        return;
                    }
                    try (RawClient c = new RawClient(s)) {
                        assertThat(s.getApplicationProtocol()).isIn("", null);
                        assertThat(c.send("GET /alpn HTTP/1.1\r\nHost: localhost\r\n\r\n").read().status()).isEqualTo(200);
                    }
                }, waits.lane("tls " + k.label), null),
                // Session 60: until then the gateway sniffed for the preface whatever ALPN said, so an HTTP/1.1
                // request on an h2 connection was served as HTTP/1.1 (the reverse was already 505)
                probe(k, "HTTP/1.1 after ALPN chose h2 -> GOAWAY PROTOCOL_ERROR, never served", kind -> {
                    String target = "/alpn-h2-" + IDS.incrementAndGet();
                    try (SSLSocket s = listeners.tls(kind, "localhost", "h2")) {
                        assertThat(s.getApplicationProtocol()).as("ALPN").isEqualTo("h2");
                        s.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: localhost\r\n\r\n")
                                .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
                        s.getOutputStream().flush();
                        java.io.InputStream in = s.getInputStream();
                        byte[] header = in.readNBytes(9);
                        assertThat(header).as("a frame header, not an HTTP/1.1 answer: '%s'",
                                new String(header, java.nio.charset.StandardCharsets.ISO_8859_1)).hasSize(9);
                        assertThat(header[3] & 0xff).as("the frame's type: '%s'",
                                new String(header, java.nio.charset.StandardCharsets.ISO_8859_1)).isEqualTo(Frames.GOAWAY);
                        byte[] payload = in.readNBytes(((header[0] & 0xff) << 16) | ((header[1] & 0xff) << 8)
                                | (header[2] & 0xff));
                        assertThat(Frames.errorName(Frames.getInt(payload, 4))).isEqualTo("PROTOCOL_ERROR");
                    }
                    assertThat(listeners.origin(kind).received()).as("what the origin got")
                            .noneMatch(r -> r.target().equals(target));
                }, waits.lane("tls " + k.label), null),
                probe(k, "SNI naming another host -> the one certificate, served", kind -> {
                    try (SSLSocket s = listeners.tls(kind, "other.example", "http/1.1"); RawClient c = new RawClient(s)) {
                        assertThat(c.send("GET /sni HTTP/1.1\r\nHost: localhost\r\n\r\n").read().status()).isEqualTo(200);
                    }
                }, waits.lane("tls " + k.label), null),
                probe(k, "TLS 1.2 renegotiation -> the connection ends", kind -> {
                    SSLContext ctx = listeners.pki.clientContext(null);
                    SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", listeners.port(kind));
                    s.setEnabledProtocols(new String[] {"TLSv1.2"});
                    SSLParameters p = s.getSSLParameters();
                    p.setApplicationProtocols(new String[] {"http/1.1"});
                    s.setSSLParameters(p);
                    s.setSoTimeout(10_000);
                    try (RawClient c = new RawClient(s)) {
                        assertThat(c.send("GET /reneg HTTP/1.1\r\nHost: localhost\r\n\r\n").read().status()).isEqualTo(200);
                        boolean ended;
                        try {
                            s.startHandshake();
                            c.send("GET /reneg2 HTTP/1.1\r\nHost: localhost\r\n\r\n");
                            ended = c.isClosedByPeer();
                        } catch (IOException e) {
                            ended = true;
                        }
                        assertThat(ended).as("the connection ended").isTrue();
                    }
                    assertThat(listeners.origin(k).received()).noneMatch(r -> r.target().equals("/reneg2"));
                }, waits.lane("tls " + k.label), null),
                probe(k, "TLS 1.3 KeyUpdate x1,000 with no data between -> closed after 32, counted failed",
                        HostileProbeTest::keyUpdateFlood, waits.lane("tls " + k.label), null),
                // Session 57. SNI of 255 bytes (four labels of 63: the most a host name's text may be) and an SNI with a
                // NUL in it (patched into a real ClientHello: no client library sends one): an alert or the one
                // certificate, never a hang or a thread lost, and the bystander served.
                probe(k, "SNI of 255 bytes -> the one certificate, or an alert; closed", kind ->
                        oddSni(kind, String.join(".", java.util.Collections.nCopies(4, "a".repeat(63))), false),
                        waits.lane("tls " + k.label), null),
                probe(k, "SNI with a NUL inside -> an alert or the one certificate; closed", kind ->
                        oddSni(kind, "nul" + "n".repeat(20) + ".localhost", true), waits.lane("tls " + k.label), null),
                // close_notify after 10 of 1,000 announced body bytes: the request never reaches the origin complete
                probe(k, "close_notify mid-body -> the origin never gets a whole body", kind -> {
                    String id = "/notify-mid-body-" + IDS.incrementAndGet();
                    SSLSocket s = listeners.tls(kind, "localhost", "http/1.1");
                    OutputStream out = s.getOutputStream();
                    out.write(("POST " + id + " HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n\r\n"
                            + "0123456789").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
                    out.flush();
                    s.shutdownOutput(); // close_notify; the socket stays open to read what the gateway does
                    long t0 = System.nanoTime();
                    int first;
                    try {
                        first = s.getInputStream().read();
                    } catch (IOException e) {
                        first = -1;
                    }
                    long ms = (System.nanoTime() - t0) / 1_000_000;
                    s.close();
                    System.out.printf("PROBE close_notify mid-body %s: first byte %d after %d ms%n", kind.label, first,
                            ms);
                    assertThat(ms).as("the gateway's answer or close").isLessThan(ProbeListeners.READ_TIMEOUT_MS + 3000);
                    assertThat(listeners.origin(kind).received()).as("what the origin got")
                            .noneMatch(r -> r.target().equals(id) && r.body() != null && r.body().length == 1000);
                }, waits.lane("tls " + k.label), null)));
    }


    /**
     * Session 61. KeyUpdate after KeyUpdate, each asking for the gateway's own (update_requested: the JDK's client
     * sends one with each startHandshake on an established TLS 1.3 connection), no application data between, then a
     * request. BoringSSL ends the connection at the 33rd in a row (kMaxKeyUpdates); JSSE answered every one and
     * served the request after 1,000 (session 60), a key schedule step and an answer each for nothing. Both providers
     * now: the connection ends after 32, the request is never served, and the refusal is counted in
     * {@code loomgate_client_tls_handshakes_failed_total{reason="failed"}}.
     */
    private static void keyUpdateFlood(Kind k) throws Exception {
        String path = "/key-update-flood-" + IDS.incrementAndGet();
        double failedBefore = listeners.handshakeFailures(k).get("failed");
        SSLSocket s = listeners.tls(k, "localhost", k.http2 ? "h2" : "http/1.1");
        try (s) {
            assertThat(s.getSession().getProtocol()).as("the protocol").isEqualTo("TLSv1.3");
            s.setSoTimeout(ProbeListeners.READ_TIMEOUT_MS + 3000);
            int sent = 0;
            String writes = "written";
            long t0 = System.nanoTime();
            try {
                for (; sent < 1_000; sent++) {
                    s.startHandshake(); // a KeyUpdate(update_requested), the client's keys changed after it
                }
                s.getOutputStream().write(get(k, path, 1, true));
                s.getOutputStream().flush();
            } catch (IOException e) {
                writes = "a write failed after " + sent + " key updates (" + e.getMessage() + ")";
            }
            String end;
            int read = 0;
            try {
                byte[] b = new byte[8192];
                for (int n; (n = s.getInputStream().read(b)) >= 0; ) {
                    read += n;
                }
                end = "EOF";
            } catch (java.net.SocketTimeoutException e) {
                end = "no end";
            } catch (IOException e) {
                end = "ended: " + e.getMessage();
            }
            long ms = (System.nanoTime() - t0) / 1_000_000;
            boolean served = originGot(k, path);
            System.out.printf("PROBE KeyUpdate x1,000 %s: %s; %s after %d ms, %d bytes read; the origin %s the "
                    + "request%n", k.label, writes, end, ms, read, served ? "got" : "never got");
            assertThat(served).as("the request after the key updates was served (%s, %s)", writes, end).isFalse();
            assertThat(end).as("the connection's end").isNotEqualTo("no end");
        }
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (listeners.handshakeFailures(k).get("failed") <= failedBefore && System.nanoTime() < deadline) {
            Thread.sleep(50); // counted as the connection ends, on its own thread
        }
        assertThat(listeners.handshakeFailures(k).get("failed")).as("handshakes failed, reason failed")
                .isGreaterThan(failedBefore);
    }

    // ------------------------------------------------------------------------------------------------- TLS records

    /**
     * Session 58. Records no TLS library writes on its own, after a real handshake ({@link RawTlsClient}: JSSE's
     * engine, its keys reused to encrypt records of the probe's choosing), on every TLS kind: h1 and h2 by ALPN, JSSE
     * and Conscrypt on the gateway's side. Each says what the client saw ({@code PROBE} lines), that the origin never
     * got what it must not, within a bound; the bystander beside it as every probe's. Skipped (not failed) where JSSE's
     * internals are not opened to the tests (the module's surefire argLine opens them).
     */
    Stream<DynamicNode> tlsRecords(Gateway g, Waits waits) {
        return perKind(g, Kind.tls(), k -> List.of(
                recordProbe(k, "empty records dripped every 500 ms in place of a request -> closed at idle-timeout",
                        kind -> emptyRecordsDripped(kind, 500), waits),
                recordProbe(k, "empty records dripped every 1.5 s in place of a request -> closed at idle-timeout",
                        kind -> emptyRecordsDripped(kind, 1500), waits),
                recordProbe(k, "10,000 empty records, then a request -> served or closed, never a hang",
                        HostileProbeTest::emptyRecordFlood, waits),
                recordProbe(k, "a fatal alert mid-body -> closed, the origin never gets a whole body",
                        kind -> alertMidBody(kind, "TLSv1.3", 2, 80), waits),
                recordProbe(k, "a warning alert mid-body (TLS 1.2, user_canceled), then the rest -> served or closed",
                        kind -> alertMidBody(kind, "TLSv1.2", 1, 90), waits),
                recordProbe(k, "a record of 2^14+1 plaintext bytes -> closed, never served",
                        HostileProbeTest::recordOverflow, waits),
                recordProbe(k, "a record header announcing 65,535 bytes, then nothing -> closed",
                        HostileProbeTest::recordHeaderOverLimit, waits),
                recordProbe(k, "close_notify, then a request -> the request is never served",
                        HostileProbeTest::dataAfterCloseNotify, waits)));
    }

    private static DynamicTest recordProbe(Kind k, String name, Probe p, Waits waits) {
        return probe(k, name, kind -> {
            org.junit.jupiter.api.Assumptions.assumeTrue(RawTlsClient.available(), RawTlsClient::unavailable);
            p.run(kind);
        }, waits.lane("records " + k.label), null); // a lane of their own: the two drips wait out idle-timeout
    }

    private static RawTlsClient rawTls(Kind k, String protocol) throws IOException {
        RawTlsClient c = new RawTlsClient(listeners.pki.clientContext(null), listeners.port(k), protocol,
                k.http2 ? "h2" : "http/1.1");
        assertThat(c.applicationProtocol()).as("ALPN").isEqualTo(k.http2 ? "h2" : "http/1.1");
        return c;
    }

    /** A whole GET of {@code path} in this kind's protocol (for h2 with the preface and SETTINGS, on {@code stream}). */
    private static byte[] get(Kind k, String path, int stream, boolean preface) {
        if (!k.http2) {
            return ("GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        }
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        if (preface) {
            b.writeBytes(Frames.PREFACE);
            b.writeBytes(WireFrames.frame(Frames.SETTINGS, 0, 0, new byte[0]));
        }
        b.writeBytes(WireFrames.frame(Frames.HEADERS, Frames.FLAG_END_HEADERS | Frames.FLAG_END_STREAM, stream,
                RawH2Client.request("GET", path)));
        return b.toByteArray();
    }

    /** A POST of {@code path} announcing 1,000 body bytes and the first 10 of them (h2: no END_STREAM). */
    private static byte[] postStart(Kind k, String path) {
        if (!k.http2) {
            return ("POST " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: 1000\r\n\r\n"
                    + "0123456789")
                    .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        }
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        b.writeBytes(Frames.PREFACE);
        b.writeBytes(WireFrames.frame(Frames.SETTINGS, 0, 0, new byte[0]));
        b.writeBytes(WireFrames.frame(Frames.HEADERS, Frames.FLAG_END_HEADERS, 1,
                RawH2Client.request("POST", path, "content-length", "1000")));
        b.writeBytes(WireFrames.frame(Frames.DATA, 0, 1, "0123456789".getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
        return b.toByteArray();
    }

    /** The other 990 bytes of {@link #postStart}'s body (h2: END_STREAM). */
    private static byte[] postRest(Kind k) {
        byte[] rest = "r".repeat(990).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        return k.http2 ? WireFrames.frame(Frames.DATA, Frames.FLAG_END_STREAM, 1, rest) : rest;
    }

    private static boolean originGot(Kind k, String path) {
        return listeners.origin(k).received().stream().anyMatch(r -> r.target().equals(path));
    }

    /**
     * An empty application-data record every {@code everyMs} and nothing else (TLS 1.2: JSSE's TLS 1.3 answers an
     * empty record with bad_record_mac): bytes keep arriving, none of them a request, so the connection is idle and
     * ends at idle-timeout. Before session 58 it did not: every 500 ms, each record came within the hand-off wait's
     * SO_TIMEOUT (1 s), which bounds each read of the raw socket under TLS, so the wait never ended; every 1.5 s,
     * each record resumed the parked connection, whose next wait began a whole idle-timeout anew. Either way over
     * 20 s with idle-timeout 4 s; on Conscrypt until BoringSSL's limit of 32 empty records in a row.
     */
    private static void emptyRecordsDripped(Kind k, int everyMs) throws Exception {
        try (RawTlsClient c = rawTls(k, "TLSv1.2")) {
            if (k.http2) {
                // the preface and SETTINGS first: the wait is then HTTP/2's, between streams
                java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
                b.writeBytes(Frames.PREFACE);
                b.writeBytes(WireFrames.frame(Frames.SETTINGS, 0, 0, new byte[0]));
                c.write(b.toByteArray());
            }
            AtomicInteger sent = new AtomicInteger();
            long t0 = System.nanoTime();
            Thread dripper = Thread.ofVirtual().start(() -> {
                try {
                    while (!Thread.currentThread().isInterrupted()) {
                        // encrypted anew each time: a record is bound to its sequence number
                        c.raw(c.record(RawTlsClient.APPLICATION_DATA, new byte[0]));
                        sent.incrementAndGet();
                        Thread.sleep(everyMs);
                    }
                } catch (Exception e) {
                    // closed by the gateway: expected
                }
            });
            RawTlsClient.Outcome o = c.readToEnd(20_000);
            dripper.interrupt();
            long ms = (System.nanoTime() - t0) / 1_000_000;
            System.out.printf("PROBE empty records dripped every %d ms %s: %s, %d records sent, %d ms from the "
                    + "handshake's end%n", everyMs, k.label, o, sent.get(), ms);
            assertThat(o.ended()).as("the gateway ended the connection: %s", o).isTrue();
            assertThat(ms).as("ms to the end").isLessThan(ProbeListeners.IDLE_TIMEOUT_MS + 3000);
        }
    }

    /** 10,000 empty application-data records (220 KB) in a row, then a request: served, or the connection ended. */
    private static void emptyRecordFlood(Kind k) throws Exception {
        String path = "/empty-flood-" + IDS.incrementAndGet();
        try (RawTlsClient c = rawTls(k, "TLSv1.3")) {
            java.io.ByteArrayOutputStream flood = new java.io.ByteArrayOutputStream();
            long t0 = System.nanoTime();
            String writes = "written";
            try {
                for (int i = 0; i < 10_000; i++) {
                    flood.writeBytes(c.record(RawTlsClient.APPLICATION_DATA, new byte[0]));
                    if (flood.size() >= 64 * 1024) {
                        c.raw(flood.toByteArray());
                        flood.reset();
                    }
                }
                c.raw(flood.toByteArray());
                c.raw(c.record(RawTlsClient.APPLICATION_DATA, get(k, path, 1, true)));
            } catch (IOException e) {
                writes = "a write failed after " + (System.nanoTime() - t0) / 1_000_000 + " ms (" + e.getMessage() + ")";
            }
            RawTlsClient.Outcome o = c.readToEnd(ProbeListeners.READ_TIMEOUT_MS + 3000);
            boolean served = originGot(k, path);
            System.out.printf("PROBE 10,000 empty records %s: %s; %s; the origin %s the request%n", k.label, writes, o,
                    served ? "got" : "never got");
            if (!served) {
                assertThat(o.ended()).as("not served, so the connection must have ended: %s", o).isTrue();
            } else if (!k.http2) {
                assertThat(o.status()).as("the answer: %s", o).isEqualTo(200);
            }
        }
    }

    /** A POST's first 10 of 1,000 body bytes, an alert, then (a warning) the rest: closed, or served whole. */
    private static void alertMidBody(Kind k, String protocol, int level, int description) throws Exception {
        String path = "/alert-mid-body-" + IDS.incrementAndGet();
        try (RawTlsClient c = rawTls(k, protocol)) {
            c.write(postStart(k, path));
            c.raw(c.alert(level, description));
            String rest = "not sent";
            if (level == 1) {
                try {
                    c.write(postRest(k));
                    rest = "sent";
                } catch (IOException e) {
                    rest = "failed (" + e.getMessage() + ")";
                }
            }
            // after a warning, an h2 connection served stays open (its idle end is not waited for: the origin says)
            RawTlsClient.Outcome o = c.readToEnd(level == 1 && k.http2 ? ProbeListeners.READ_TIMEOUT_MS
                    : ProbeListeners.READ_TIMEOUT_MS + 5000);
            java.util.Optional<TestOrigin.Recorded> got = listeners.origin(k).received().stream()
                    .filter(r -> r.target().equals(path)).findFirst();
            System.out.printf("PROBE alert %d/%d mid-body %s %s: the rest %s; %s; the origin got %s%n", level,
                    description, protocol, k.label, rest, o, got.map(r -> r.body() == null ? "no body"
                            : r.body().length + " body bytes").orElse("nothing"));
            if (level == 2) {
                assertThat(o.ended()).as("ended after a fatal alert: %s", o).isTrue();
                assertThat(got.filter(r -> r.body() != null && r.body().length == 1000)).as("a whole body at the origin")
                        .isEmpty();
            } else {
                // a warning alert may be ignored (served whole) or taken as the end: never a hang, never a part served
                assertThat(o.ended() || got.isPresent()).as("ended or served: %s", o).isTrue();
                assertThat(got.filter(r -> r.body() == null || r.body().length != 1000)).as("a part of the body served")
                        .isEmpty();
            }
        }
    }

    /** A request in one record of 2^14+1 plaintext bytes (over every version's limit): an alert or the end. */
    private static void recordOverflow(Kind k) throws Exception {
        String path = "/record-overflow-" + IDS.incrementAndGet();
        try (RawTlsClient c = rawTls(k, "TLSv1.3")) {
            byte[] request;
            if (k.http2) {
                byte[] head = get(k, path, 1, true);
                // the request's frames, then zeros to the size: a gateway that took the record would serve the
                // request before it read the zeros as a (malformed) frame
                request = java.util.Arrays.copyOf(head, RawTlsClient.MAX_PLAINTEXT + 1);
            } else {
                String head = "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nX-Pad: ";
                request = (head + "p".repeat(RawTlsClient.MAX_PLAINTEXT + 1 - head.length() - 4) + "\r\n\r\n")
                        .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
            }
            assertThat(request).hasSize(RawTlsClient.MAX_PLAINTEXT + 1);
            c.raw(c.record(RawTlsClient.APPLICATION_DATA, request));
            RawTlsClient.Outcome o = c.readToEnd(ProbeListeners.HEADER_TIMEOUT_MS + 5000);
            System.out.printf("PROBE record of 2^14+1 bytes %s: %s; the origin %s the request%n", k.label, o,
                    originGot(k, path) ? "got" : "never got");
            assertThat(o.ended()).as("ended: %s", o).isTrue();
            assertThat(o.ms()).as("ms to the end").isLessThan(ProbeListeners.HEADER_TIMEOUT_MS + 3000);
            if (k.gateway == Gateway.TLS_CONSCRYPT) {
                assertThat(o.end()).as("Conscrypt's answer").contains("record_overflow");
                assertThat(originGot(k, path)).as("the origin got the request in the oversized record").isFalse();
            } else if (!k.http2 && originGot(k, path)) {
                // JSSE takes records of up to 2^14 more plaintext than the limit by design (sun.security.ssl.SSLRecord:
                // maxLargeRecordSize, "Some SSL/TLS implementations support large fragment up to 2^15 bytes"): the
                // request is then served as any other, whole and once; its buffer is JSSE's own, bounded
                assertThat(o.status()).as("the answer: %s", o).isEqualTo(200);
            }
        }
    }

    /** A record header announcing 65,535 bytes (over every version's ciphertext limit) and nothing after it. */
    private static void recordHeaderOverLimit(Kind k) throws Exception {
        try (RawTlsClient c = rawTls(k, "TLSv1.3")) {
            c.raw(new byte[] {RawTlsClient.APPLICATION_DATA, 3, 3, (byte) 0xff, (byte) 0xff});
            RawTlsClient.Outcome o = c.readToEnd(ProbeListeners.IDLE_TIMEOUT_MS + ProbeListeners.HEADER_TIMEOUT_MS + 5000);
            System.out.printf("PROBE record header of 65,535 bytes %s: %s%n", k.label, o);
            assertThat(o.ended()).as("ended: %s", o).isTrue();
            assertThat(o.ms()).as("ms to the end").isLessThan(ProbeListeners.IDLE_TIMEOUT_MS + 3000);
        }
    }

    /** A request, close_notify, then another request: the second is data after the client's end and never served. */
    private static void dataAfterCloseNotify(Kind k) throws Exception {
        int id = IDS.incrementAndGet();
        String first = "/before-notify-" + id;
        String after = "/after-notify-" + id;
        try (RawTlsClient c = rawTls(k, "TLSv1.3")) {
            c.write(get(k, first, 1, true));
            c.raw(c.alert(1, 0));
            String sent;
            try {
                c.raw(c.record(RawTlsClient.APPLICATION_DATA, get(k, after, 3, false)));
                sent = "sent";
            } catch (IOException e) {
                sent = "failed (" + e.getMessage() + ")";
            }
            RawTlsClient.Outcome o = c.readToEnd(ProbeListeners.READ_TIMEOUT_MS + 5000);
            System.out.printf("PROBE data after close_notify %s: the second request %s; %s; the origin got the "
                    + "first %s, the second %s%n", k.label, sent, o, originGot(k, first), originGot(k, after));
            assertThat(originGot(k, after)).as("the origin got a request sent after close_notify").isFalse();
        }
    }

    /**
     * A ClientHello naming {@code sni} (with {@code nul}: its fourth byte turned into a NUL), written whole on a TCP
     * connection: the gateway answers a ServerHello (the one certificate; then the probe goes no further) or an alert,
     * or closes, within the handshake's deadline; never nothing.
     */
    private static void oddSni(Kind k, String sni, boolean nul) throws Exception {
        byte[] hello = clientHello(listeners.pki.clientContext(null), p -> {
            p.setServerNames(List.of(new javax.net.ssl.SNIHostName(sni)));
            p.setApplicationProtocols(new String[] {"http/1.1"});
        });
        if (nul) {
            byte[] name = sni.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            int at = indexOf(hello, name);
            assertThat(at).as("the SNI in the ClientHello").isPositive();
            hello[at + 3] = 0;
        }
        try (Socket s = listeners.tcp(k)) {
            s.setSoTimeout(2 * ProbeListeners.HEADER_TIMEOUT_MS + 3000);
            long t0 = System.nanoTime();
            s.getOutputStream().write(hello);
            s.getOutputStream().flush();
            int first;
            try {
                first = s.getInputStream().read();
            } catch (IOException x) {
                first = -1; // reset: an end too
            }
            long ms = (System.nanoTime() - t0) / 1_000_000;
            System.out.printf("PROBE SNI %s%s %s: first byte %d after %d ms%n", sni.length() + " bytes",
                    nul ? " with a NUL" : "", k.label, first, ms);
            assertThat(first).as("a ServerHello (22), an alert (21) or the end").isIn(22, 21, -1);
            assertThat(ms).isLessThan(2L * ProbeListeners.HEADER_TIMEOUT_MS + 3000);
        }
    }

    private static int indexOf(byte[] in, byte[] what) {
        outer:
        for (int i = 0; i + what.length <= in.length; i++) {
            for (int j = 0; j < what.length; j++) {
                if (in[i + j] != what[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** The bytes of a real ClientHello (TLS records) from the JDK's engine. */
    private static byte[] clientHello(SSLContext ctx) throws IOException {
        return clientHello(ctx, p -> { });
    }

    /** {@link #clientHello(SSLContext)} with the engine's parameters set by {@code params} first. */
    private static byte[] clientHello(SSLContext ctx, java.util.function.Consumer<SSLParameters> params)
            throws IOException {
        SSLEngine e = ctx.createSSLEngine("localhost", 443);
        e.setUseClientMode(true);
        SSLParameters p = e.getSSLParameters();
        params.accept(p);
        e.setSSLParameters(p);
        ByteBuffer out = ByteBuffer.allocate(e.getSession().getPacketBufferSize());
        e.wrap(ByteBuffer.allocate(0), out);
        out.flip();
        byte[] b = new byte[out.remaining()];
        out.get(b);
        return b;
    }
}
