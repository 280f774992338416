package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestPki;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The gateway as a TLS edge (server.ssl): handshakes from the JDK's HttpClient and curl at TLS 1.3 and 1.2, older
 * protocols refused, the certificate picked by SNI, ALPN, the forwarding fields that say https, garbage and stalled
 * handshakes on the TLS port, and the plain port that redirects to https.
 */
class TlsTerminationTest {
    private static TestPki pki;
    private static TestOrigin origin;
    private static RunningGateway gateway;
    private static int redirectPort;
    private static SSLContext client;

    @BeforeAll
    static void start() throws Exception {
        pki = TestPki.create("Termination CA");
        TestPki.Issued main = pki.issue("main", "gateway.test", "localhost");
        TestPki.Issued api = pki.issue("api", "api.example", "rsa", 30, "api.example");
        TestPki.Issued internal = pki.issue("internal", "wildcard.internal.example", "*.internal.example");
        origin = new TestOrigin();
        // http-redirect-port 0 means none: a probed port, started again on another if lost before the bind
        gateway = FreePorts.start(redirect -> RunningGateway.start("""
                server:
                  address: 127.0.0.1
                  port: 0
                  header-timeout: 5s
                  http-redirect-port: ${REDIRECT}
                  http2:
                    enabled: false     # this listener is HTTP/1.1 only: ALPN offers http/1.1 alone
                  ssl:
                    provider: ${TLS_PROVIDER}
                    certificate: ${MAIN_CERT}
                    certificate-private-key: ${MAIN_KEY}
                    server-names:
                      - server-name: api.example
                        certificate: ${API_CERT}
                        certificate-private-key: ${API_KEY}
                      - server-name: "*.internal.example"
                        key-store: ${INTERNAL_P12}
                        key-store-password: changeit
                admin:
                  port: 0
                routes:
                  - id: main
                    uri: ${ORIGIN}
                    predicates: [ "Path=/**" ]
                """, Map.of("ORIGIN", origin.uri(), "REDIRECT", Integer.toString(redirect),
                "MAIN_CERT", main.cert().toString(), "MAIN_KEY", main.key().toString(),
                "API_CERT", api.cert().toString(), "API_KEY", api.key().toString(),
                "INTERNAL_P12", internal.p12().toString())));
        redirectPort = gateway.gateway().redirectListener().port();
        client = pki.clientContext(null);
    }

    @AfterAll
    static void stop() throws IOException {
        gateway.close();
        origin.close();
    }

    private static String https(String path) {
        return "https://127.0.0.1:" + gateway.port() + path;
    }

    private static HttpResponse<String> get(String protocol, String path) throws Exception {
        SSLParameters p = new SSLParameters();
        p.setProtocols(new String[] {protocol});
        HttpClient c = HttpClient.newBuilder().sslContext(client).sslParameters(p)
                .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
        return c.send(HttpRequest.newBuilder(URI.create(https(path))).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theJdkClientGetsThroughOverTls13AndTls12AndTheOriginHearsHttps() throws Exception {
        for (String protocol : List.of("TLSv1.3", "TLSv1.2")) {
            HttpResponse<String> r = get(protocol, "/hello-" + protocol);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("hello from origin");
            assertThat(r.sslSession().orElseThrow().getProtocol()).isEqualTo(protocol);
            if (jdkProvider()) { // BoringSSL follows the client's order in TLS 1.3, and it cannot be configured
                // The JDK client offers AES-256-GCM first; the listener's order (AES-128-GCM first) decides.
                assertThat(r.sslSession().orElseThrow().getCipherSuite()).contains("_AES_128_GCM_");
            }
            TestOrigin.Recorded seen = seen("/hello-" + protocol);
            assertThat(seen.header("X-Forwarded-Proto")).isEqualTo("https");
            assertThat(seen.header("Forwarded")).contains("proto=https");
            assertThat(seen.header("X-Forwarded-Client-Cert")).isNull();
        }
    }

    @Test
    void aBulkDownloadCrossesTheTlsListenerWholeAndEncrypted() throws Exception {
        // Large enough for the bulk path a plain listener takes (direct buffers written to the client's channel).
        // JSSE's socket hands out the raw socket's channel when there is one: were the bulk path taken here, the body
        // would reach the client as plaintext and its TLS layer would fail.
        byte[] body = new byte[6 * 1024 * 1024 + 7];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) (i * 31 + (i >>> 11));
        }
        origin.enqueue(new TestOrigin.Reply("HTTP/1.1 200 OK", List.of("Content-Length: " + body.length),
                List.of(body), Duration.ZERO, Duration.ZERO, TestOrigin.Effect.NONE));
        HttpClient c = HttpClient.newBuilder().sslContext(client).version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create(https("/bulk"))).timeout(Duration.ofSeconds(30))
                .build();
        HttpResponse<byte[]> r = c.send(request, HttpResponse.BodyHandlers.ofByteArray());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).as("every byte, through TLS").isEqualTo(body);
    }

    @Test
    void curlGetsThroughOverTls13AndTls12WithAlpnHttp11() throws Exception {
        TestPki.requireTool("curl", "--version");
        for (String[] version : new String[][] {{"--tlsv1.3", "TLSv1.3"}, {"--tlsv1.2", "TLSv1.2"}}) {
            String out = TestPki.run(List.of("curl", "-sS", "-v", "--max-time", "20", "--cacert",
                    pki.caCert().toString(), version[0], "--tls-max", version[0].substring(6), https("/curl")));
            assertThat(out).contains("SSL connection using " + version[1]);
            assertThat(out).contains("ALPN: server accepted http/1.1");
            assertThat(out).contains("hello from origin");
        }
    }

    @Test
    void tls11AndTls10AreRefusedByTheServer() throws Exception {
        TestPki.requireOpenssl();
        for (String flag : List.of("-tls1_1", "-tls1")) {
            // SECLEVEL=0 makes the openssl client willing to offer the old protocol, so the refusal is the server's.
            Process p = new ProcessBuilder("openssl", "s_client", "-connect", "127.0.0.1:" + gateway.port(), flag,
                    "-cipher", "DEFAULT:@SECLEVEL=0").redirectErrorStream(true).start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor()).isNotZero();
            assertThat(out).contains("alert protocol version");
        }
    }

    @Test
    void sniPicksTheCertificateExactNameThenWildcardElseTheFirst() throws Exception {
        assertThat(servedSubject("api.example")).isEqualTo("CN=api.example");
        assertThat(servedSubject("db.internal.example")).isEqualTo("CN=wildcard.internal.example");
        assertThat(servedSubject("a.b.internal.example")).isEqualTo("CN=gateway.test"); // one label only
        assertThat(servedSubject("unknown.example")).isEqualTo("CN=gateway.test");
        assertThat(servedSubject(null)).isEqualTo("CN=gateway.test");
    }

    private static String servedSubject(String sni) throws Exception {
        // A fresh context each time: a cached session would be resumed without any certificate being chosen.
        try (RawClient c = RawClient.tls(pki.clientContext(null), gateway.port(), sni)) {
            X509Certificate leaf = (X509Certificate) ((SSLSocket) c.socket()).getSession().getPeerCertificates()[0];
            assertThat(c.get("/sni").status()).isEqualTo(200);
            return leaf.getSubjectX500Principal().getName();
        }
    }

    @Test
    void alpnSettlesOnHttp11WhenTheClientOffersH2Too() throws Exception {
        try (RawClient c = RawClient.tls(client, gateway.port(), "localhost", 10_000, "h2", "http/1.1")) {
            assertThat(((SSLSocket) c.socket()).getApplicationProtocol()).isEqualTo("http/1.1");
            assertThat(c.get("/alpn").status()).isEqualTo(200);
            assertThat(c.get("/alpn-again").status()).isEqualTo(200); // keep-alive over TLS
        }
    }

    private static boolean jdkProvider() {
        return RunningGateway.tlsProvider().equals("jdk");
    }

    @Test
    void aClientOfferingOnlyProtocolsTheListenerDoesNotSpeakIsRefusedWithNoApplicationProtocol() throws Exception {
        // JSSE's behaviour (RFC 7301 §3.2); Conscrypt goes on without ALPN, and the client then speaks HTTP/1.1.
        Assumptions.assumeTrue(jdkProvider(), "the JDK's provider");
        try (SSLSocket s = (SSLSocket) client.getSocketFactory().createSocket("127.0.0.1", gateway.port())) {
            SSLParameters p = s.getSSLParameters();
            p.setApplicationProtocols(new String[] {"spdy/3.1"});
            s.setSSLParameters(p);
            s.setSoTimeout(20_000);
            assertThatThrownBy(s::startHandshake).hasMessageContaining("no_application_protocol");
        }
        assertThat(get("TLSv1.3", "/after-alpn-refusal").statusCode()).isEqualTo(200);
    }

    @Test
    void byDefaultAlpnSettlesOnH2AndCurlIsServedOverHttp2() throws Exception {
        TestPki.requireTool("curl", "--version");
        TestPki.Issued cert = pki.issue("h2", "h2.test", "localhost");
        try (RunningGateway h2 = RunningGateway.start("""
                server:
                  address: 127.0.0.1
                  port: 0
                  ssl:                 # no server.http2: on by default
                    provider: ${TLS_PROVIDER}
                    certificate: ${CERT}
                    certificate-private-key: ${KEY}
                admin:
                  port: 0
                routes:
                  - { id: main, uri: "${ORIGIN}", predicates: [ "Path=/**" ] }
                """, Map.of("ORIGIN", origin.uri(), "CERT", cert.cert().toString(), "KEY", cert.key().toString()))) {
            try (RawClient c = RawClient.tls(pki.clientContext(null), h2.port(), "localhost", 10_000, "h2",
                    "http/1.1")) {
                assertThat(((SSLSocket) c.socket()).getApplicationProtocol()).isEqualTo("h2");
            }
            String out = TestPki.run(List.of("curl", "-sS", "-v", "--http2", "--max-time", "20", "--cacert",
                    pki.caCert().toString(), "https://127.0.0.1:" + h2.port() + "/over-h2"));
            assertThat(out).contains("ALPN: server accepted h2").contains("HTTP/2 200").contains("hello from origin");
            assertThat(seen("/over-h2").header("X-Forwarded-Proto")).isEqualTo("https");
        }
    }

    @Test
    void plainHttpOnTheTlsPortIsClosedAndDisturbsNobody() throws Exception {
        try (Socket plain = new Socket(InetAddress.getLoopbackAddress(), gateway.port())) {
            plain.setSoTimeout(15_000);
            plain.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(readsToEnd(plain.getInputStream())).isTrue();
        }
        assertThat(get("TLSv1.3", "/after-garbage").statusCode()).isEqualTo(200);
    }

    @Test
    void stalledHandshakesDelayNobodyAndAreCutAtTheHeaderTimeout() throws Exception {
        List<Socket> stalled = new ArrayList<>();
        try {
            for (int i = 0; i < 50; i++) {
                Socket s = new Socket(InetAddress.getLoopbackAddress(), gateway.port());
                s.setSoTimeout(20_000);
                if (i % 2 == 0) { // half send the first bytes of a ClientHello and stop
                    s.getOutputStream().write(new byte[] {0x16, 0x03, 0x01, 0x02, 0x00, 0x01});
                }
                stalled.add(s);
            }
            try (RawClient c = RawClient.tls(pki.clientContext(null), gateway.port(), "localhost")) {
                assertThat(c.get("/while-stalled").status()).isEqualTo(200);
            }
            // Served while every stalled handshake is still open: nobody waited for their 5 s to run out.
            for (Socket s : stalled) {
                assertThat(isOpen(s)).as("stalled handshake still open after the request was served").isTrue();
            }
            for (Socket s : stalled) {
                assertThat(readsToEnd(s.getInputStream())).as("stalled handshake closed by the gateway").isTrue();
            }
        } finally {
            for (Socket s : stalled) {
                s.close();
            }
        }
    }

    @Test
    void thePlainRedirectPortAnswers308ToHttps() throws Exception {
        try (RawClient c = new RawClient(redirectPort)) {
            RawClient.Response r = c.send("POST /orders?id=7 HTTP/1.1\r\nHost: shop.example:" + redirectPort
                    + "\r\nContent-Length: 0\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(308);
            assertThat(r.header("Location")).isEqualTo("https://shop.example:" + gateway.port() + "/orders?id=7");
        }
    }

    @Test
    void aClientThatDoesNotTrustTheCertificateFailsItsHandshake() {
        HttpClient c = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build(); // JDK trust store
        assertThatThrownBy(() -> c.send(HttpRequest.newBuilder(URI.create(https("/x"))).build(),
                HttpResponse.BodyHandlers.ofString())).isInstanceOf(IOException.class);
    }

    /** The origin's record of the request for this target (other tests' requests may come in between). */
    static TestOrigin.Recorded seen(String target) {
        return origin.received().stream().filter(r -> r.target().equals(target)).findFirst()
                .orElseThrow(() -> new AssertionError("the origin never received " + target));
    }

    private static boolean isOpen(Socket s) throws IOException {
        s.setSoTimeout(1);
        try {
            return s.getInputStream().read() >= 0;
        } catch (SocketTimeoutException e) {
            return true;
        } catch (IOException e) {
            return false;
        } finally {
            s.setSoTimeout(20_000);
        }
    }

    /** Whether the peer ends the stream (EOF or reset) before the socket's own timeout. */
    static boolean readsToEnd(InputStream in) {
        try {
            byte[] b = new byte[1024];
            while (in.read(b) >= 0) {
                // a TLS alert may come first: read on until the end
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }
}
