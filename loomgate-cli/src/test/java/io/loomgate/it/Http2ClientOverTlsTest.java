package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.H2Origin;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The JDK's HttpClient speaking HTTP/2 (ALPN h2) to the gateway's TLS listener, the gateway speaking HTTP/2 to an
 * h2c origin: a hundred streams on one client connection side by side, multiplexed onto one upstream connection.
 */
class Http2ClientOverTlsTest {

    @Test
    void aHundredJdkHttp2StreamsOverTlsReachAnH2cOriginSideBySide() throws Exception {
        TestPki pki = TestPki.create("edge CA");
        TestPki.Issued edge = pki.issue("edge", "localhost", "localhost");
        try (H2Origin origin = H2Origin.h2c();
             RunningGateway gw = RunningGateway.start("""
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
                     "ORIGIN", origin.h2cUri()))) {
            HttpClient client = HttpClient.newBuilder().sslContext(pki.clientContext(null))
                    .version(HttpClient.Version.HTTP_2).connectTimeout(Duration.ofSeconds(10)).build();
            String base = "https://localhost:" + gw.port();
            // One request first, so the hundred share its connection instead of racing to open their own.
            HttpResponse<String> first = client.send(HttpRequest.newBuilder(URI.create(base + "/hello")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(first.version()).isEqualTo(HttpClient.Version.HTTP_2);
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
}
