package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.H2Origin;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import io.loomgate.testkit.TestPki;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The JDK's HttpClient speaking HTTP/2 (ALPN h2) to the gateway's TLS listener: a hundred streams on one client
 * connection side by side, multiplexed onto one upstream connection to an h2c origin; and a hundred streams whose
 * heads are each the stream's own, some too large for one frame.
 */
class Http2ClientOverTlsTest {
    private static final String GATEWAY = """
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
            routes:
              - id: main
                uri: ${ORIGIN}
                predicates: [ "Path=/**" ]
            """;

    private static RunningGateway gateway(TestPki.Issued edge, String origin) throws Exception {
        return RunningGateway.start(GATEWAY, Map.of("CERT", edge.cert().toString(), "KEY", edge.key().toString(),
                "ORIGIN", origin));
    }

    /** A client whose one request is answered over h2, so the streams that follow share its connection. */
    private static HttpClient connectedClient(TestPki pki, String url) throws Exception {
        HttpClient client = HttpClient.newBuilder().sslContext(pki.clientContext(null))
                .version(HttpClient.Version.HTTP_2).connectTimeout(Duration.ofSeconds(10)).build();
        HttpResponse<String> first = client.send(HttpRequest.newBuilder(URI.create(url)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(first.version()).isEqualTo(HttpClient.Version.HTTP_2);
        return client;
    }

    @Test
    void aHundredJdkHttp2StreamsOverTlsReachAnH2cOriginSideBySide() throws Exception {
        TestPki pki = TestPki.create("edge CA");
        TestPki.Issued edge = pki.issue("edge", "localhost", "localhost");
        try (H2Origin origin = H2Origin.h2c(); RunningGateway gw = gateway(edge, origin.h2cUri())) {
            String base = "https://localhost:" + gw.port();
            HttpClient client = connectedClient(pki, base + "/hello");
            long start = System.nanoTime();
            List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                all.add(client.sendAsync(HttpRequest.newBuilder(URI.create(base + "/slow/300"))
                        .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString()));
            }
            for (CompletableFuture<HttpResponse<String>> f : all) {
                HttpResponse<String> r = f.get(90, TimeUnit.SECONDS);
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
                assertThat(r.body()).isEqualTo("slow");
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            // One after another would be 30 s; side by side about 300 ms (generous for a shared machine).
            assertThat(millis).isLessThan(15_000);
            assertThat(origin.maxInFlight()).isGreaterThan(20);
            assertThat(origin.connections()).as("multiplexed upstream").isLessThanOrEqualTo(2);
            HttpResponse<String> up = client.send(HttpRequest.newBuilder(URI.create(base + "/echo"))
                    .POST(HttpRequest.BodyPublishers.ofString("from an h2 client")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(up.body()).isEqualTo("from an h2 client");
            assertThat(up.headers().firstValue("x-version")).hasValue("HTTP/2.0");
        }
    }

    /** The fields the origin answers request {@code n} with. */
    private static List<String[]> fieldsFor(int n) {
        List<String[]> out = new ArrayList<>();
        boolean large = n % 4 == 0;
        int count = large ? 60 : 1 + n % 5; // large: ~40 KB Huffman-coded, HEADERS and two CONTINUATIONs
        int length = large ? 900 : 3 * n;
        for (int i = 0; i < count; i++) {
            StringBuilder v = new StringBuilder();
            for (long k = 0; v.length() < length; k++) {
                v.append(Long.toString((n * 131L + i * 17 + k) * 2654435761L % 1_000_003, 36));
            }
            out.add(new String[] {"x-field-" + i, v.substring(0, length)});
        }
        return out;
    }

    /**
     * Every stream's head as its origin sent it, every fourth too large for one of the client's 16 KiB frames (HEADERS
     * and two CONTINUATIONs, encoded straight into the connection's shared frame batch beside the other streams'
     * frames): a block cut or spliced wrongly is a protocol error the client fails the connection for, or fields
     * that differ.
     */
    @Test
    void aHundredStreamsGetTheirOwnHeadsWholeLargeOnesOverContinuationFrames() throws Exception {
        TestPki pki = TestPki.create("edge CA");
        TestPki.Issued edge = pki.issue("edge", "localhost", "localhost");
        try (TestOrigin origin = new TestOrigin()) {
            origin.fallback(r -> {
                int n = Integer.parseInt(r.target().substring("/h/".length()));
                List<String> lines = new ArrayList<>();
                for (String[] f : fieldsFor(n)) {
                    lines.add(f[0] + ": " + f[1]);
                }
                String body = "body " + n;
                lines.add("Content-Length: " + body.length());
                return Reply.raw("HTTP/1.1 200 OK", lines, body);
            });
            try (RunningGateway gw = gateway(edge, origin.uri())) {
                String base = "https://localhost:" + gw.port();
                HttpClient client = connectedClient(pki, base + "/h/4");
                List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
                for (int n = 1; n <= 100; n++) {
                    all.add(client.sendAsync(HttpRequest.newBuilder(URI.create(base + "/h/" + n))
                            .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString()));
                }
                for (int n = 1; n <= 100; n++) {
                    HttpResponse<String> r = all.get(n - 1).get(90, TimeUnit.SECONDS);
                    assertThat(r.statusCode()).isEqualTo(200);
                    assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
                    assertThat(r.body()).isEqualTo("body " + n);
                    for (String[] f : fieldsFor(n)) {
                        assertThat(r.headers().allValues(f[0])).as("stream of /h/%d, %s", n, f[0])
                                .containsExactly(f[1]);
                    }
                }
            }
        }
    }
}
