package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.cli.Gateway;
import io.loomgate.observe.GatewayMetrics;
import io.loomgate.testkit.H2Origin;
import io.loomgate.testkit.PrometheusText;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestPki;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

/**
 * SCG's {@code LocalResponseCache} through the gateway with real sockets: what is kept and what is not (issue 37),
 * and every listener kind (HTTP/1.1, h2c, both over TLS) with every upstream kind (HTTP/1.1 and h2c, each also over
 * TLS) and the body
 * shapes (empty, fixed, chunked, larger than an entry may be, with trailers, cut by the origin).
 */
class LocalResponseCacheTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private static TestOrigin.Reply reply(String body, String... fields) {
        List<String> lines = new ArrayList<>(List.of(fields));
        lines.add("Content-Length: " + body.getBytes(StandardCharsets.UTF_8).length);
        return TestOrigin.Reply.raw("HTTP/1.1 200 OK", lines, body);
    }

    private static TestOrigin origin() throws Exception {
        TestOrigin origin = new TestOrigin();
        origin.fallback(r -> {
            String t = r.target();
            if (t.contains("no-store")) {
                return reply("kept nowhere", "Cache-Control: no-store");
            } else if (t.contains("private")) {
                return reply("mine", "Cache-Control: private, max-age=60");
            } else if (t.contains("vary-star")) {
                return reply("any", "Vary: *");
            } else if (t.contains("vary")) {
                return reply("lang " + r.header("Accept-Language"), "Vary: Accept-Language");
            } else if (t.contains("status")) {
                return TestOrigin.Reply.raw("HTTP/1.1 404 Not Found", List.of("Content-Length: 4"), "gone");
            } else if (t.contains("chunked")) {
                return TestOrigin.Reply.raw("HTTP/1.1 200 OK", List.of("Transfer-Encoding: chunked"),
                        "5\r\nhello\r\n", "6\r\n chunk\r\n", "0\r\n\r\n");
            } else if (t.contains("empty")) {
                return reply("");
            } else if (t.contains("cut")) { // promises 1000 bytes, sends 20 and closes
                return TestOrigin.Reply.raw("HTTP/1.1 200 OK", List.of("Content-Length: 1000"), "x".repeat(20), "y")
                        .with(TestOrigin.Effect.CLOSE_MID_BODY);
            } else if (t.contains("big")) {
                return reply("b".repeat(300_000));
            }
            return reply("body of " + t, "Cache-Control: public, max-age=600", "Expires: Thu, 01 Jan 2099 00:00:00 GMT",
                    "Pragma: no-cache");
        });
        return origin;
    }

    private static final String ROUTES = """
            routes:
              - id: h1
                uri: ${H1}
                predicates: [ "Path=/h1/**" ]
                filters: [ "StripPrefix=1", "LocalResponseCache=10m,1MB" ]
              - id: h2
                uri: ${H2}
                predicates: [ "Path=/h2/**" ]
                filters: [ "StripPrefix=1", { name: LocalResponseCache, args: { timeToLive: 10m, size: 1MB, max-entry-size: 200KB } } ]
            """;

    /** Routes to TLS origins, HTTP/1.1 only and h2 by ALPN, for the matrix. */
    private static final String TLS_ROUTES = """
              - id: h1s
                uri: ${H1S}
                predicates: [ "Path=/h1s/**" ]
                filters: [ "StripPrefix=1", "LocalResponseCache=10m,1MB,200KB" ]
              - id: h2s
                uri: ${H2S}
                predicates: [ "Path=/h2s/**" ]
                filters: [ "StripPrefix=1", "LocalResponseCache=10m,1MB,200KB" ]
            upstream:
              http2: true
              ssl:
                trust-certificate: ${CA}
            """;

    @Test
    void keepsWhatScgKeepsAndServesItWithAgeAndTheSecondsLeft() throws Exception {
        GatewayMetrics metrics = new GatewayMetrics();
        try (TestOrigin origin = origin(); H2Origin h2 = H2Origin.h2c();
             RunningGateway gw = RunningGateway.start(ROUTES, Map.of("H1", origin.uri(), "H2", h2.h2cUri()),
                     new Gateway.Observers(metrics, metrics, metrics, metrics.rateLimits()))) {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            String base = "http://127.0.0.1:" + gw.port() + "/h1";

            HttpResponse<String> first = get(client, base + "/a?x=1", Map.of());
            assertThat(first.body()).isEqualTo("body of /a?x=1");
            assertThat(first.headers().firstValue("Age")).isEmpty();
            assertThat(first.headers().firstValue("Cache-Control")).hasValue("public,max-age=600");
            assertThat(first.headers().firstValue("Expires")).isEmpty(); // SCG drops Pragma and Expires
            HttpResponse<String> second = get(client, base + "/a?x=1", Map.of());
            assertThat(second.body()).isEqualTo("body of /a?x=1");
            assertThat(second.headers().firstValue("Age")).isPresent();
            assertThat(Long.parseLong(second.headers().firstValue("Age").orElseThrow())).isBetween(0L, 60L);
            assertThat(second.headers().firstValue("Cache-Control").orElseThrow()).matches("public,max-age=(59\\d|600)");
            assertThat(origin.requestCount()).isEqualTo(1);
            // another query is another entry; so are another Authorization and other cookies (SCG's key)
            get(client, base + "/a?x=2", Map.of());
            get(client, base + "/a?x=1", Map.of("Authorization", "Bearer other"));
            get(client, base + "/a?x=1", Map.of("Cookie", "s=1"));
            assertThat(origin.requestCount()).isEqualTo(4);
            // a client's no-cache goes to the origin; no-store passes the cache by
            get(client, base + "/a?x=1", Map.of("Cache-Control", "no-cache"));
            get(client, base + "/a?x=1", Map.of("Cache-Control", "no-store"));
            assertThat(origin.requestCount()).isEqualTo(6);
            assertThat(get(client, base + "/a?x=1", Map.of()).headers().firstValue("Age")).isPresent();
            assertThat(origin.requestCount()).isEqualTo(6);

            // what the origin forbids, a status SCG does not keep, Vary: * and a POST go to the origin every time
            for (String path : List.of("/no-store", "/private", "/vary-star", "/status")) {
                int before = origin.requestCount();
                get(client, base + path, Map.of());
                get(client, base + path, Map.of());
                assertThat(origin.requestCount()).as(path).isEqualTo(before + 2);
            }
            int before = origin.requestCount();
            for (int i = 0; i < 2; i++) {
                client.send(HttpRequest.newBuilder(URI.create(base + "/post")).POST(HttpRequest.BodyPublishers
                        .ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
            }
            assertThat(origin.requestCount()).isEqualTo(before + 2);

            // Vary: one entry per value of the named field
            before = origin.requestCount();
            assertThat(get(client, base + "/vary", Map.of("Accept-Language", "fr")).body()).isEqualTo("lang fr");
            assertThat(get(client, base + "/vary", Map.of("Accept-Language", "de")).body()).isEqualTo("lang de");
            assertThat(get(client, base + "/vary", Map.of("Accept-Language", "fr")).body()).isEqualTo("lang fr");
            assertThat(get(client, base + "/vary", Map.of("Accept-Language", "de")).body()).isEqualTo("lang de");
            assertThat(origin.requestCount()).isEqualTo(before + 2);

            // 1MB cache, 300 KB bodies: the fourth pushes the least recently used out
            for (int i = 0; i < 4; i++) {
                assertThat(get(client, base + "/big/" + i, Map.of()).body()).hasSize(300_000);
            }
            before = origin.requestCount();
            get(client, base + "/big/0", Map.of());
            assertThat(origin.requestCount()).as("evicted, fetched again").isEqualTo(before + 1);
            get(client, base + "/big/3", Map.of());
            assertThat(origin.requestCount()).as("still kept").isEqualTo(before + 1);

            // The outcome is counted as the exchange ends, which may be just after the client has the response.
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            PrometheusText text = new PrometheusText(metrics.registry().scrape());
            while (text.value("loomgate_cache_requests_total", "route=h1", "outcome=hit") < 5.0
                    && System.nanoTime() - deadline < 0) {
                LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
                text = new PrometheusText(metrics.registry().scrape());
            }
            assertThat(text.value("loomgate_cache_requests_total", "route=h1", "outcome=hit"))
                    .isGreaterThanOrEqualTo(5.0);
            assertThat(text.value("loomgate_cache_requests_total", "route=h1", "outcome=revalidate"))
                    .isEqualTo(1.0);
            assertThat(text.value("loomgate_cache_requests_total", "route=h1", "outcome=miss"))
                    .isGreaterThanOrEqualTo(10.0);
            assertThat(text.value("loomgate_cache_evictions_total", "route=h1")).isGreaterThanOrEqualTo(1.0);
        }
    }

    /** Each listener kind × upstream kind × body shape: the second request is a hit unless the body may not be kept. */
    @Test
    void everyListenerAndUpstreamKind() throws Exception {
        TestPki pki = TestPki.create("cache CA");
        TestPki.Issued edge = pki.issue("edge", "localhost", "localhost");
        TestPki.Issued originCert = pki.issue("origin", "localhost", "localhost");
        try (TestOrigin origin = origin(); H2Origin h2 = H2Origin.h2c();
             H2Origin h1s = H2Origin.tls(originCert, List.of("http/1.1"));
             H2Origin h2s = H2Origin.tls(originCert, List.of("h2", "http/1.1"));
             RunningGateway plain = RunningGateway.start("""
                     server:
                       address: 127.0.0.1
                       port: 0
                       http2:
                         enabled: true
                     admin:
                       port: 0
                     """ + ROUTES + TLS_ROUTES, Map.of("H1", origin.uri(), "H2", h2.h2cUri(), "H1S", h1s.httpsUri(),
                     "H2S", h2s.httpsUri(), "CA", pki.caCert().toString()));
             RunningGateway tls = RunningGateway.start("""
                     server:
                       address: 127.0.0.1
                       port: 0
                       http2:
                         enabled: true
                       ssl:
                         provider: ${TLS_PROVIDER}
                         certificate: ${CERT}
                         certificate-private-key: ${KEY}
                     admin:
                       port: 0
                     """ + ROUTES + TLS_ROUTES, Map.of("H1", origin.uri(), "H2", h2.h2cUri(), "H1S", h1s.httpsUri(),
                     "H2S", h2s.httpsUri(), "CA", pki.caCert().toString(), "CERT", edge.cert().toString(),
                     "KEY", edge.key().toString()))) {
            record Listener(String name, List<String> curl, String base) {
            }
            List<Listener> listeners = List.of(
                    new Listener("h1", List.of("--http1.1"), "http://127.0.0.1:" + plain.port()),
                    new Listener("h2c", List.of("--http2-prior-knowledge"), "http://127.0.0.1:" + plain.port()),
                    new Listener("h1+tls", List.of("--http1.1", "--cacert", pki.caCert().toString()),
                            "https://localhost:" + tls.port()),
                    new Listener("h2+tls", List.of("--http2", "--cacert", pki.caCert().toString()),
                            "https://localhost:" + tls.port()));
            record Shape(String path, IntSupplier originCount, int length, boolean kept) {
            }
            for (Listener l : listeners) {
                List<Shape> shapes = List.of(
                        new Shape("/h1/fixed", origin::requestCount, -1, true),
                        new Shape("/h1/empty", origin::requestCount, 0, true),
                        new Shape("/h1/chunked", origin::requestCount, 11, true),
                        new Shape("/h1/cut", origin::requestCount, -2, false),
                        new Shape("/h2/bytes/0", h2::requests, 0, true),
                        new Shape("/h2/bytes/150000", h2::requests, 150_000, true),
                        new Shape("/h2/bytes/250000", h2::requests, 250_000, false), // over max-entry-size
                        new Shape("/h2/trailers", h2::requests, -1, false), // trailers: a hit could not replay them
                        new Shape("/h1s/bytes/0", h1s::requests, 0, true),
                        new Shape("/h1s/bytes/150000", h1s::requests, 150_000, true),
                        new Shape("/h1s/bytes/250000", h1s::requests, 250_000, false),
                        new Shape("/h2s/bytes/0", h2s::requests, 0, true),
                        new Shape("/h2s/bytes/150000", h2s::requests, 150_000, true),
                        new Shape("/h2s/bytes/250000", h2s::requests, 250_000, false));
                for (Shape s : shapes) {
                    String url = l.base() + s.path() + (s.path().contains("?") ? "&" : "?") + "on=" + l.name();
                    String cell = l.name() + " " + s.path();
                    int before = s.originCount().getAsInt();
                    Curled a = curl(l.curl(), url);
                    if (s.length() == -2) { // cut by the origin: the client sees a broken body, nothing is kept
                        Curled b = curl(l.curl(), url);
                        assertThat(a.exit()).as(cell).isNotZero();
                        assertThat(b.exit()).as(cell).isNotZero();
                        assertThat(s.originCount().getAsInt()).as(cell).isEqualTo(before + 2);
                        continue;
                    }
                    assertThat(a.exit()).as(cell + ": " + a.head()).isZero();
                    if (s.length() >= 0) {
                        assertThat(a.body().length).as(cell).isEqualTo(s.length());
                    }
                    if (!s.kept()) {
                        Curled b = curl(l.curl(), url);
                        assertThat(b.exit()).as(cell + ": " + b.head()).isZero();
                        assertThat(b.body()).as(cell).isEqualTo(a.body());
                        assertThat(b.head().toLowerCase()).as(cell).doesNotContain("\nage: ");
                        assertThat(s.originCount().getAsInt()).as(cell).isEqualTo(before + 2);
                        continue;
                    }
                    // The entry is stored once the gateway has finished the response, which a client that already
                    // has every byte may not wait for: a request right after may still miss. Poll for the hit.
                    Curled hit = null;
                    long deadline = System.nanoTime() + WAIT.toNanos();
                    while (hit == null && System.nanoTime() < deadline) {
                        Curled b = curl(l.curl(), url);
                        assertThat(b.exit()).as(cell + ": " + b.head()).isZero();
                        assertThat(b.body()).as(cell).isEqualTo(a.body());
                        hit = b.head().toLowerCase().contains("\nage: ") ? b : null;
                    }
                    assertThat(hit).as(cell + ": never served from the cache").isNotNull();
                    int afterHit = s.originCount().getAsInt();
                    Curled again = curl(l.curl(), url);
                    assertThat(again.head().toLowerCase()).as(cell).contains("\nage: ");
                    assertThat(again.body()).as(cell).isEqualTo(a.body());
                    assertThat(s.originCount().getAsInt()).as(cell + ": hits do not reach the origin")
                            .isEqualTo(afterHit);
                }
            }
            assertThat(h1s.versions()).containsExactly("HTTP/1.1");
            assertThat(h2s.versions()).containsExactly("HTTP/2.0");
        }
    }

    private record Curled(int exit, String head, byte[] body) {
    }

    private static Curled curl(List<String> options, String url) throws Exception {
        Path head = Files.createTempFile("cache-head", ".txt");
        List<String> cmd = new ArrayList<>(List.of("curl", "-sS", "--max-time", "20", "-D", head.toString()));
        cmd.addAll(options);
        cmd.add(url);
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        p.getInputStream().transferTo(body);
        assertThat(p.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).as("curl ended").isTrue();
        String h = Files.readString(head);
        Files.delete(head);
        return new Curled(p.exitValue(), h.replace("\r\n", "\n"), body.toByteArray());
    }

    private static HttpResponse<String> get(HttpClient client, String url, Map<String, String> headers)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(WAIT);
        headers.forEach(b::header);
        HttpResponse<String> r = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
        return r;
    }
}
