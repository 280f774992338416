package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestPki;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * SCG's {@code CacheRequestBody} through the gateway with real sockets (issue 37): on every listener kind (HTTP/1.1,
 * h2c, both over TLS) and for every body shape (empty, with a length, without one, exactly the bound, over it with
 * and without a length, a client that goes away mid-body), the origin gets the whole body with a Content-Length, a
 * {@code Retry} replays it although it is far over {@code max-replay-size}, and a body over the bound is 413 with no
 * upstream call. A route without the filter still streams (chunked stays chunked).
 */
class CacheRequestBodyTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int BOUND = 300 * 1024;

    /** The first request for a target is answered 503 (the route retries it), the second echoes what came. */
    private static TestOrigin origin() throws Exception {
        TestOrigin origin = new TestOrigin();
        Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
        origin.fallback(r -> {
            if (r.target().startsWith("/stream") || seen.computeIfAbsent(r.target(), t -> new AtomicInteger())
                    .getAndIncrement() > 0) {
                String text = "len=" + r.body().length + " cl=" + r.header("Content-Length") + " te="
                        + r.header("Transfer-Encoding");
                return TestOrigin.Reply.raw("HTTP/1.1 200 OK", List.of("Content-Length: " + text.length()), text);
            }
            return TestOrigin.Reply.raw("HTTP/1.1 503 Service Unavailable", List.of("Content-Length: 4"), "busy");
        });
        return origin;
    }

    private static final String ROUTES = """
            routes:
              - id: cached
                uri: ${ORIGIN}
                predicates: [ "Path=/c/**" ]
                filters:
                  - StripPrefix=1
                  - name: CacheRequestBody
                    args: { bodyClass: java.lang.String, max-size: 300KB }
                  - name: Retry
                    args: { retries: 1, statuses: SERVICE_UNAVAILABLE, methods: POST, max-replay-size: 1KB,
                            min-retries-per-second: 100000 }
              - id: streamed
                uri: ${ORIGIN}
                predicates: [ "Path=/stream/**" ]
            """;

    private static String listener(boolean tls) {
        return """
                server:
                  address: 127.0.0.1
                  port: 0
                  http2:
                    enabled: true
                """ + (tls ? """
                  ssl:
                    certificate: ${CERT}
                    certificate-private-key: ${KEY}
                """ : "") + """
                admin:
                  port: 0
                """;
    }

    @Test
    void everyListenerKindAndBodyShape() throws Exception {
        TestPki pki = TestPki.create("crb CA");
        TestPki.Issued edge = pki.issue("edge", "localhost", "localhost");
        Path dir = Files.createTempDirectory("crb");
        try (TestOrigin origin = origin();
             RunningGateway plain = RunningGateway.start(listener(false) + ROUTES, Map.of("ORIGIN", origin.uri()));
             RunningGateway tls = RunningGateway.start(listener(true) + ROUTES, Map.of("ORIGIN", origin.uri(),
                     "CERT", edge.cert().toString(), "KEY", edge.key().toString()))) {
            record Listener(String name, List<String> curl, String base) {
            }
            List<Listener> listeners = List.of(
                    new Listener("h1", List.of("--http1.1"), "http://127.0.0.1:" + plain.port()),
                    new Listener("h2c", List.of("--http2-prior-knowledge"), "http://127.0.0.1:" + plain.port()),
                    new Listener("h1+tls", List.of("--http1.1", "--cacert", pki.caCert().toString()),
                            "https://localhost:" + tls.port()),
                    new Listener("h2+tls", List.of("--http2", "--cacert", pki.caCert().toString()),
                            "https://localhost:" + tls.port()));
            // declared: sent with its length (curl --data-binary @file); else from stdin, without one (chunked)
            record Shape(String name, int length, boolean declared) {
            }
            List<Shape> shapes = List.of(new Shape("empty", 0, true), new Shape("small", 10, true),
                    new Shape("unknown-length", 5000, false), new Shape("at-bound", BOUND, false),
                    new Shape("at-bound-declared", BOUND, true), new Shape("over-bound", BOUND + 1, false),
                    new Shape("over-bound-declared", BOUND + 1, true));
            for (Listener l : listeners) {
                for (Shape s : shapes) {
                    String cell = l.name() + " " + s.name();
                    String target = "/" + l.name() + "/" + s.name();
                    Path body = dir.resolve(s.name());
                    byte[] bytes = new byte[s.length()];
                    Arrays.fill(bytes, (byte) 'b');
                    Files.write(body, bytes);
                    int before = origin.requestCount();
                    Curled r = curl(l.curl(), s.declared(), body, l.base() + "/c" + target);
                    if (s.length() > BOUND) {
                        // The 413 comes while curl may still upload; the rest is refused (HTTP/1.1: the connection
                        // closes, lingering: the rest of the upload is read and thrown away first, so no reset
                        // can drop the answer; HTTP/2: the stream is reset with NO_ERROR), which curl may report
                        // as its own failure (exit 92, 55) after it has the answer: the answer is what is checked,
                        // on every listener kind.
                        assertThat(r.head()).as(cell + " (curl exit " + r.exit() + ")")
                                .startsWith(l.name().startsWith("h2") ? "HTTP/2 413" : "HTTP/1.1 413");
                        assertThat(origin.requestCount()).as(cell + ": no upstream call").isEqualTo(before);
                        continue;
                    }
                    assertThat(r.exit()).as(cell + ": " + r.head()).isZero();
                    assertThat(r.head()).as(cell).startsWith(l.name().startsWith("h2") ? "HTTP/2 200"
                            : "HTTP/1.1 200");
                    // whole, with its length, never chunked, on the retry too (the first try got a 503)
                    // (an empty body that HTTP/2 ends with its head is no body: it goes on without a length, as
                    // without the filter)
                    assertThat(new String(r.body(), StandardCharsets.UTF_8)).as(cell)
                            .matches("len=" + s.length() + " cl=(" + s.length() + (s.length() == 0 ? "|null" : "")
                                    + ") te=null");
                    List<TestOrigin.Recorded> tries = origin.received().stream()
                            .filter(q -> q.target().equals(target)).toList();
                    assertThat(tries).as(cell).hasSize(2);
                    for (TestOrigin.Recorded t : tries) {
                        assertThat(t.body()).as(cell).isEqualTo(bytes);
                        assertThat(t.header("Transfer-Encoding")).as(cell).isNull();
                        if (s.length() > 0) {
                            assertThat(t.header("Content-Length")).as(cell).isEqualTo(Integer.toString(s.length()));
                        }
                    }
                }
            }

            // A route without the filter streams as before: a body without a length goes on chunked.
            Path body = dir.resolve("unknown-length");
            Curled streamed = curl(List.of("--http1.1"), false, body, "http://127.0.0.1:" + plain.port()
                    + "/stream/x");
            assertThat(new String(streamed.body(), StandardCharsets.UTF_8)).isEqualTo("len=5000 cl=null te=chunked");

            // A client that goes away mid-body: nothing goes upstream, and the gateway serves the next request.
            clientAbortsMidBody(origin, plain, tls, pki);
        }
    }

    /**
     * A breaker's fallback gets the cached body: without the filter, a request with a body goes to the fallback only
     * while the breaker is open, since the attempt that failed took the streamed body.
     */
    @Test
    void aBreakersFallbackGetsTheCachedBody() throws Exception {
        try (TestOrigin origin = origin();
             RunningGateway gw = RunningGateway.start("""
                     routes:
                       - id: guarded
                         uri: ${ORIGIN}
                         predicates: [ "Path=/cb/**" ]
                         filters:
                           - StripPrefix=1
                           - CacheRequestBody
                           - name: CircuitBreaker
                             args: { name: cb, statusCodes: [ 503 ], fallbackUri: "forward:/stream/fallback" }
                       - id: streamed
                         uri: ${ORIGIN}
                         predicates: [ "Path=/stream/**" ]
                     """, Map.of("ORIGIN", origin.uri()))) {
            byte[] body = "a body for the fallback".getBytes(StandardCharsets.UTF_8);
            HttpResponse<String> r = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gw.port() + "/cb/x")).timeout(WAIT)
                            .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)))
                            .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.body()).isEqualTo("len=" + body.length + " cl=" + body.length + " te=null");
            assertThat(origin.received()).extracting(TestOrigin.Recorded::target).containsExactly("/x",
                    "/stream/fallback");
            assertThat(origin.received().get(1).body()).isEqualTo(body);
        }
    }

    private static void clientAbortsMidBody(TestOrigin origin, RunningGateway plain, RunningGateway tls, TestPki pki)
            throws Exception {
        int before = origin.requestCount();
        try (Socket s = new Socket("127.0.0.1", plain.port())) {
            OutputStream out = s.getOutputStream();
            out.write(("POST /c/abort/h1 HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n" + "a".repeat(10))
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
        }
        // HTTP/2 over TLS: the JDK client resets the stream when the body it sends fails half way.
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2)
                .sslContext(pki.clientContext(null)).build();
        HttpRequest cut = HttpRequest.newBuilder(URI.create("https://localhost:" + tls.port() + "/c/abort/h2"))
                .timeout(WAIT).POST(HttpRequest.BodyPublishers.ofInputStream(() -> new InputStream() {
                    private int sent;

                    @Override
                    public int read() throws IOException {
                        if (sent++ < 100) {
                            return 'a';
                        }
                        throw new IOException("the client gives up");
                    }
                })).build();
        try {
            client.send(cut, HttpResponse.BodyHandlers.ofString());
        } catch (IOException expected) {
            // the client's own failure
        }
        // The gateway answers the next request on each listener, so the aborted ones have ended there.
        for (String base : List.of("http://127.0.0.1:" + plain.port(), "https://localhost:" + tls.port())) {
            HttpResponse<String> next = client.send(HttpRequest.newBuilder(URI.create(base + "/c/after"
                    + (base.startsWith("https") ? "/tls" : "/plain"))).timeout(WAIT)
                    .version(HttpClient.Version.HTTP_1_1)
                    .POST(HttpRequest.BodyPublishers.ofString("next")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(next.body()).isEqualTo("len=4 cl=4 te=null");
        }
        assertThat(origin.received().stream().filter(q -> q.target().startsWith("/abort")).toList())
                .as("no cut body goes upstream").isEmpty();
        assertThat(origin.requestCount()).isEqualTo(before + 4); // the two "after" requests, each tried twice
    }

    private record Curled(int exit, String head, byte[] body) {
    }

    private static Curled curl(List<String> options, boolean declared, Path body, String url) throws Exception {
        Path head = Files.createTempFile("crb-head", ".txt");
        List<String> cmd = new ArrayList<>(List.of("curl", "-sS", "--max-time", "20", "-D", head.toString()));
        cmd.addAll(options);
        if (declared) {
            cmd.addAll(List.of("--data-binary", "@" + body));
        } else {
            cmd.addAll(List.of("-X", "POST", "-T", "-"));
        }
        cmd.add(url);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD);
        if (!declared) {
            pb.redirectInput(body.toFile());
        }
        Process p = pb.start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        p.getInputStream().transferTo(out);
        assertThat(p.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).as("curl ended").isTrue();
        String h = Files.readString(head);
        Files.delete(head);
        // curl asks large uploads to Expect 100-continue: the interim head is not the answer
        return new Curled(p.exitValue(), h.replace("\r\n", "\n").replace("HTTP/1.1 100 Continue\n\n", ""),
                out.toByteArray());
    }
}
