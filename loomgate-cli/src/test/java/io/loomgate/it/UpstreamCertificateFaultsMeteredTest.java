package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.cli.ServedGateway;
import io.loomgate.testkit.PrometheusText;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestPki;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An https:// origin whose certificate names another host, has expired, or is signed by a CA the gateway does not
 * trust, served the way {@code loomgate serve} serves it (metrics on, admin listener on): each is a 502, and each is
 * counted as an upstream error of kind {@code tls}. The metrics once had no slot for that kind, and the
 * exception of the missing slot turned the 502 into a 500.
 */
class UpstreamCertificateFaultsMeteredTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static TestOrigin expired;
    private static TestOrigin misnamed;
    private static TestOrigin untrusted;
    private static ServedGateway gateway;

    @BeforeAll
    static void start() throws Exception {
        TestPki pki = TestPki.create("Origin CA");
        expired = TestOrigin.tls(pki.serverContext(pki.issue("old", "old.test", "ec", -1, "localhost")), false);
        misnamed = TestOrigin.tls(pki.serverContext(
                pki.issue("other", "other.example", "ec", 30, "other.example")), false);
        TestPki unknown = TestPki.create("Unknown CA");
        untrusted = TestOrigin.tls(unknown.serverContext(unknown.issue("stranger", "stranger", "localhost")), false);
        gateway = RunningGateway.servedWithAdmin("""
                server:
                  address: 127.0.0.1
                  port: 0
                admin:
                  address: 127.0.0.1
                  port: ${ADMIN_PORT}
                access-log:
                  enabled: false
                upstream:
                  ssl:
                    trust-certificate: ${CA}
                routes:
                  - { id: expired, uri: "${EXPIRED}", predicates: [ "Path=/expired/**" ] }
                  - { id: misnamed, uri: "${MISNAMED}", predicates: [ "Path=/misnamed/**" ] }
                  - { id: untrusted, uri: "${UNTRUSTED}", predicates: [ "Path=/untrusted/**" ] }
                """, "gateway.yaml", Map.of("CA", pki.caCert().toString(), "EXPIRED", expired.uri("localhost"),
                "MISNAMED", misnamed.uri("localhost"), "UNTRUSTED", untrusted.uri("localhost")));
        assertThat(gateway.adminPort()).isPositive();
    }

    @AfterAll
    static void stop() throws Exception {
        if (gateway != null) {
            gateway.close();
        }
        for (TestOrigin o : new TestOrigin[] {expired, misnamed, untrusted}) {
            if (o != null) {
                o.close();
            }
        }
    }

    @Test
    void eachCertificateFaultIsA502CountedAsAnUpstreamTlsError() throws Exception {
        for (String route : new String[] {"expired", "misnamed", "untrusted"}) {
            HttpResponse<String> r = get(gateway.port(), "/" + route + "/x");
            assertThat(r.statusCode()).as("%s: %s", route, r.body()).isEqualTo(502);
        }
        PrometheusText metrics = new PrometheusText(get(gateway.adminPort(), "/metrics").body());
        for (String route : new String[] {"expired", "misnamed", "untrusted"}) {
            assertThat(metrics.value("loomgate_upstream_errors_total", "upstream=" + route, "kind=tls"))
                    .as(route).isEqualTo(1.0);
            assertThat(metrics.value("loomgate_exchange_failures_total", "route=" + route, "kind=upstream_tls"))
                    .as(route).isEqualTo(1.0);
        }
        assertThat(expired.requestCount() + misnamed.requestCount() + untrusted.requestCount()).isZero();
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(15)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
