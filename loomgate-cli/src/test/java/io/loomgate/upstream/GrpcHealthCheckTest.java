package io.loomgate.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.ServerCredentials;
import io.grpc.TlsServerCredentials;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestPki;
import io.loomgate.tls.ClientTls;
import io.loomgate.tls.ClientTlsSettings;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * gRPC health checks ({@code health-check: { grpc: true }}) against grpc-java's own health service
 * ({@link HealthStatusManager}) on an h2c-only server and over TLS: SERVING passes, NOT_SERVING, an unknown service
 * and a server without the health service fail, each saying why; through a gateway the member's verdict follows the
 * service's status.
 */
class GrpcHealthCheckTest {

    private static Server server(HealthStatusManager health, ServerCredentials credentials) throws Exception {
        var builder = Grpc.newServerBuilderForPort(0, credentials);
        if (health != null) {
            builder.addService(health.getHealthService());
        }
        return builder.build().start();
    }

    private static HealthChecker checker(String service, PoolSettings settings) {
        // generous timeout: a loaded machine; probe() uses neither the upstream nor a member
        return new HealthChecker(null, new Balancing.HealthCheck("/health", Duration.ofSeconds(2),
                Duration.ofSeconds(10), 1, 1, 200, 399, service), settings);
    }

    @Test
    void servingPassesAndEveryOtherAnswerFailsSayingWhy() throws Exception {
        HealthStatusManager health = new HealthStatusManager();
        Server server = server(health, InsecureServerCredentials.create());
        try {
            Endpoint h2c = new Endpoint("127.0.0.1", server.getPort(), false, true);
            assertThat(checker("", PoolSettings.DEFAULTS).probe(h2c)).isNull();

            health.setStatus("test.Echo", ServingStatus.SERVING);
            assertThat(checker("test.Echo", PoolSettings.DEFAULTS).probe(h2c)).isNull();

            health.setStatus("test.Echo", ServingStatus.NOT_SERVING);
            assertThat(checker("test.Echo", PoolSettings.DEFAULTS).probe(h2c))
                    .isEqualTo("gRPC health check of 'test.Echo' answered NOT_SERVING");

            assertThat(checker("test.Missing", PoolSettings.DEFAULTS).probe(h2c))
                    .startsWith("gRPC health check of 'test.Missing' answered grpc-status 5");
        } finally {
            server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aServerWithoutTheHealthServiceFails() throws Exception {
        Server server = server(null, InsecureServerCredentials.create());
        try {
            Endpoint h2c = new Endpoint("127.0.0.1", server.getPort(), false, true);
            assertThat(checker("", PoolSettings.DEFAULTS).probe(h2c))
                    .isEqualTo("gRPC health check answered grpc-status 12 (Method not found: "
                            + "grpc.health.v1.Health/Check): the origin has no gRPC health service");
        } finally {
            server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aGrpcCheckOfAnHttp11EndpointSaysItNeedsHttp2() throws Exception {
        HealthStatusManager health = new HealthStatusManager();
        Server server = server(health, InsecureServerCredentials.create());
        try {
            Endpoint http = new Endpoint("127.0.0.1", server.getPort(), false, false);
            assertThat(checker("", PoolSettings.DEFAULTS).probe(http)).contains("does not speak HTTP/2");
        } finally {
            server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void overTlsWithAPrivateCa() throws Exception {
        TestPki.requireOpenssl();
        TestPki pki = TestPki.create("gRPC health CA");
        TestPki.Issued cert = pki.issue("grpc-origin", "localhost", "localhost");
        HealthStatusManager health = new HealthStatusManager();
        Server server = server(health, TlsServerCredentials.create(cert.cert().toFile(), cert.key().toFile()));
        try {
            Endpoint https = new Endpoint("localhost", server.getPort(), true, true);
            PoolSettings trusting = PoolSettings.DEFAULTS.withTls(ClientTls.create(ClientTlsSettings.DEFAULTS
                    .withTrust(pki.caCert())));
            assertThat(checker("", trusting).probe(https)).isNull();
            PoolSettings other = PoolSettings.DEFAULTS.withTls(ClientTls.create(ClientTlsSettings.DEFAULTS
                    .withTrust(TestPki.create("another CA").caCert())));
            assertThat(checker("", other).probe(https)).startsWith("gRPC health check failed:");
        } finally {
            server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void throughTheGatewayTheMembersVerdictFollowsTheServiceStatus() throws Exception {
        HealthStatusManager health = new HealthStatusManager();
        Server server = server(health, InsecureServerCredentials.create());
        // The server's first call loads and initialises its classes, seconds on a loaded machine: one call first, so
        // the gateway's checks below see the answers and not a warming server's delay.
        assertThat(checker("", PoolSettings.DEFAULTS).probe(new Endpoint("127.0.0.1", server.getPort(), false, true)))
                .isNull();
        try (RunningGateway gw = RunningGateway.start("""
                server:
                  address: 127.0.0.1
                  port: 0
                admin:
                  port: 0
                routes:
                  - id: grpc
                    uri: h2c://127.0.0.1:${PORT}
                    predicates: [ "Path=/**" ]
                    health-check:
                      grpc: true
                      interval: 200ms
                      timeout: 10s
                      healthy-threshold: 1
                      unhealthy-threshold: 1
                """, Map.of("PORT", Integer.toString(server.getPort())))) {
            UpstreamMember member = gw.gateway().upstreams().get("grpc").members().get(0);
            health.setStatus("", ServingStatus.NOT_SERVING);
            await("NOT_SERVING makes the member unhealthy", () -> !member.healthy());
            health.setStatus("", ServingStatus.SERVING);
            await("SERVING makes it healthy again", member::healthy);
        } finally {
            server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    private static void await(String what, BooleanSupplier done) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!done.getAsBoolean()) {
            assertThat(System.nanoTime() - end).as(what).isNegative();
            Thread.sleep(20); // polling the verdict
        }
    }
}
