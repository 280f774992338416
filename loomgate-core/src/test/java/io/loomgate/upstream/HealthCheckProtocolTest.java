package io.loomgate.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.H2Origin;
import io.loomgate.testkit.TestPki;
import io.loomgate.tls.ClientTls;
import io.loomgate.tls.ClientTlsSettings;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Health checks speak the protocol the endpoint's traffic uses, against real origins on real sockets: h2 for
 * {@code h2c://}, TLS for {@code https://}, h2 over TLS when ALPN picks it for an {@code upstream.http2} endpoint
 * (HTTP/1.1 over TLS when the origin picks that). The origin records the version each request came in with.
 */
class HealthCheckProtocolTest {
    private static TestPki pki;
    private static TestPki.Issued cert;

    @BeforeAll
    static void certificates() throws Exception {
        TestPki.requireOpenssl();
        pki = TestPki.create("health check CA");
        cert = pki.issue("origin", "localhost", "localhost");
    }

    private static HealthChecker checker(PoolSettings settings) {
        // probe() uses neither the upstream nor the member: only the check and the pool's TLS and limits
        // (a generous timeout: the machine running the tests may be loaded)
        return new HealthChecker(null, new Balancing.HealthCheck("/health", Duration.ofSeconds(2),
                Duration.ofSeconds(10), 2, 2, 200, 399), settings);
    }

    private static PoolSettings trusting(TestPki ca) throws Exception {
        return PoolSettings.DEFAULTS.withTls(ClientTls.create(ClientTlsSettings.DEFAULTS.withTrust(ca.caCert())));
    }

    @Test
    void anH2cEndpointIsCheckedOverHttp2() throws Exception {
        try (H2Origin origin = H2Origin.h2c()) {
            String problem = checker(PoolSettings.DEFAULTS).probe(new Endpoint("127.0.0.1", origin.port(), false,
                    true));
            assertThat(problem).isNull();
            assertThat(origin.versions()).containsExactly("HTTP/2.0");
        }
    }

    @Test
    void anHttpsHttp2EndpointIsCheckedOverH2ByAlpn() throws Exception {
        try (H2Origin origin = H2Origin.tls(cert, List.of("h2"))) {
            String problem = checker(trusting(pki)).probe(new Endpoint("localhost", origin.port(), true, true));
            assertThat(problem).isNull();
            assertThat(origin.versions()).containsExactly("HTTP/2.0");
        }
    }

    @Test
    void anHttpsHttp2EndpointWhoseOriginPicksHttp11IsCheckedOverHttp11OnTls() throws Exception {
        try (H2Origin origin = H2Origin.tls(cert, List.of("http/1.1"))) {
            String problem = checker(trusting(pki)).probe(new Endpoint("localhost", origin.port(), true, true));
            assertThat(problem).isNull();
            assertThat(origin.versions()).containsExactly("HTTP/1.1");
        }
    }

    @Test
    void aPlainHttpsEndpointIsCheckedOverTls() throws Exception {
        try (H2Origin origin = H2Origin.tls(cert, List.of("http/1.1"))) {
            String problem = checker(trusting(pki)).probe(new Endpoint("localhost", origin.port(), true, false));
            assertThat(problem).isNull();
            assertThat(origin.requests()).isEqualTo(1);
        }
    }

    @Test
    void anOriginWithACertificateFromAnotherCaFailsTheCheck() throws Exception {
        TestPki other = TestPki.create("some other CA");
        try (H2Origin origin = H2Origin.tls(cert, List.of("h2"))) {
            String problem = checker(trusting(other)).probe(new Endpoint("localhost", origin.port(), true, true));
            assertThat(problem).startsWith("GET /health failed:").contains("localhost");
            assertThat(origin.requests()).isZero();
        }
    }

    @Test
    void aClosedPortFailsTheH2cCheck() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String problem = checker(PoolSettings.DEFAULTS).probe(new Endpoint("127.0.0.1", port, false, true));
        assertThat(problem).startsWith("GET /health failed:");
    }
}
