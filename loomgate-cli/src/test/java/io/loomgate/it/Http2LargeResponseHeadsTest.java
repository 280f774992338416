package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

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
 * Response heads as the JDK's HttpClient (HTTP/2 over TLS, its frames at most 16 KiB) reads them: a hundred streams at
 * once on one connection, each answered with fields of its own, every fourth head too large for one frame (HEADERS
 * and CONTINUATION frames, encoded straight into the connection's shared frame batch beside the other streams'
 * frames). Every head must arrive whole and as its origin sent it: a block cut or spliced wrongly is a protocol error
 * the client fails the connection for, or fields that differ.
 */
class Http2LargeResponseHeadsTest {

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
            try (RunningGateway gw = RunningGateway.start("""
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
                    """, Map.of("CERT", edge.cert().toString(), "KEY", edge.key().toString(),
                    "ORIGIN", origin.uri()))) {
                HttpClient client = HttpClient.newBuilder().sslContext(pki.clientContext(null))
                        .version(HttpClient.Version.HTTP_2).connectTimeout(Duration.ofSeconds(10)).build();
                String base = "https://localhost:" + gw.port();
                // One request first, so the hundred share its connection instead of racing to open their own.
                HttpResponse<String> first = client.send(HttpRequest.newBuilder(URI.create(base + "/h/4")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(first.version()).isEqualTo(HttpClient.Version.HTTP_2);
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
