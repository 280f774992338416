package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.loomgate.cli.Gateway;
import io.loomgate.observe.GatewayMetrics;
import io.loomgate.server.ConnectionListener;
import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.PrometheusText;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import io.loomgate.testkit.TestPki;
import io.loomgate.upstream.PoolListener;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What a real gRPC client (grpc-java) is told when the gateway answers a call itself: always a gRPC status
 * (trailers-only), never an HTML or text error page. These need no HTTP/2 origin: the answers are the gateway's.
 */
class GrpcGatewayAnswersTest {
    private static final String H2C = """
            server:
              address: 127.0.0.1
              port: 0
              http2:
                enabled: true
            admin:
              port: 0
            routes:
            """;

    private static RunningGateway gateway(String routes, Map<String, String> vars) throws Exception {
        return RunningGateway.start(H2C + routes, vars);
    }

    /** The failure of a call that must fail. */
    static StatusRuntimeException statusOf(Runnable call) {
        try {
            call.run();
        } catch (StatusRuntimeException e) {
            return e;
        }
        throw new AssertionError("the call should have failed");
    }

    private static StatusRuntimeException callFails(ManagedChannel channel, byte[] message, Duration deadline) {
        CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS);
        return gatewayAnswered(statusOf(() -> ClientCalls.blockingUnaryCall(channel, GrpcEcho.UNARY, options,
                message)));
    }

    /**
     * A status the gateway sent as gRPC: grpc-java describes a non-gRPC answer (an HTTP error page) as "HTTP status
     * code ..." with the page's text, which could carry the same words.
     */
    static StatusRuntimeException gatewayAnswered(StatusRuntimeException e) {
        assertThat(String.valueOf(e.getStatus().getDescription())).doesNotContain("HTTP status code");
        return e;
    }

    private static StatusRuntimeException callFails(ManagedChannel channel) {
        return callFails(channel, GrpcEcho.text("hello"), Duration.ofSeconds(20));
    }

    private static int deadPort() {
        return FreePorts.refused();
    }

    @Test
    void aCallNoRouteMatchesIsUnimplemented() throws Exception {
        try (RunningGateway gw = gateway("""
                  - id: other
                    uri: http://127.0.0.1:9
                    predicates: [ "Path=/other/**" ]
                """, Map.of())) {
            ManagedChannel channel = GrpcEcho.plaintext(gw.port());
            try {
                StatusRuntimeException e = callFails(channel);
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
                assertThat(e.getStatus().getDescription()).contains("no route for POST /test.Echo/Unary");
                // The connection is still good for the next call.
                assertThat(callFails(channel).getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
            } finally {
                GrpcEcho.close(channel);
            }
        }
    }

    @Test
    void aCallToADeadOriginIsUnavailable() throws Exception {
        try (RunningGateway gw = gateway("""
                  - id: rpc
                    uri: http://127.0.0.1:${PORT}
                    predicates: [ "Path=/test.Echo/**" ]
                """, Map.of("PORT", Integer.toString(deadPort())))) {
            ManagedChannel channel = GrpcEcho.plaintext(gw.port());
            try {
                StatusRuntimeException e = callFails(channel);
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
                assertThat(e.getStatus().getDescription()).isEqualTo("the upstream could not be reached");
            } finally {
                GrpcEcho.close(channel);
            }
        }
    }

    @Test
    void aCallWhoseDeadlinePassesAtASlowOriginIsDeadlineExceeded() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = gateway("""
                       - id: rpc
                         uri: ${ORIGIN}
                         predicates: [ "Path=/test.Echo/**" ]
                     """, Map.of("ORIGIN", origin.uri()))) {
            origin.fallback(r -> Reply.ok("late").delayed(Duration.ofSeconds(10)));
            ManagedChannel channel = GrpcEcho.plaintext(gw.port());
            try {
                // Open the connection first (a call no route matches): on a busy machine connecting alone can
                // outlast a short deadline, and the call would expire in the client before reaching the gateway.
                gatewayAnswered(statusOf(() -> ClientCalls.blockingUnaryCall(channel, GrpcEcho.method("Warm",
                        io.grpc.MethodDescriptor.MethodType.UNARY).toBuilder().setFullMethodName("test.Warm/Up")
                        .build(), CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS), GrpcEcho.text("x"))));
                long t0 = System.nanoTime();
                StatusRuntimeException e = callFails(channel, GrpcEcho.text("hello"), Duration.ofMillis(500));
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
                assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(8));
                TestOrigin.Recorded seen = origin.takeRequest();
                // The origin was told what was left of the client's deadline, never more.
                assertThat(io.loomgate.grpc.GrpcTimeout.parseNanos(seen.header("grpc-timeout")))
                        .isPositive().isLessThanOrEqualTo(Duration.ofMillis(500).toNanos());
            } finally {
                GrpcEcho.close(channel);
            }
        }
    }

    @Test
    void aRateLimitedCallIsResourceExhaustedWithTheLimitHeadersAsMetadata() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = gateway("""
                       - id: rpc
                         uri: ${ORIGIN}
                         predicates: [ "Path=/test.Echo/**" ]
                         filters:
                           - name: RequestRateLimiter
                             args: { replenish-rate: 1, burst-capacity: 1, key-resolver: route, store: local }
                     """, Map.of("ORIGIN", origin.uri()))) {
            origin.fallback(r -> Reply.status(503));
            ManagedChannel channel = GrpcEcho.plaintext(gw.port());
            try {
                // The one token: the call reaches the origin, whose 503 is no gRPC answer (the client maps it).
                assertThat(statusOf(() -> ClientCalls.blockingUnaryCall(channel, GrpcEcho.UNARY,
                        CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS), GrpcEcho.text("x")))
                        .getStatus().getDescription()).contains("HTTP status code 503");
                StatusRuntimeException e = callFails(channel);
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                assertThat(e.getStatus().getDescription()).contains("rate limit exceeded");
                Metadata trailers = e.getTrailers();
                assertThat(trailers.get(Metadata.Key.of("retry-after", Metadata.ASCII_STRING_MARSHALLER)))
                        .isNotNull();
                assertThat(origin.requestCount()).isEqualTo(1);
            } finally {
                GrpcEcho.close(channel);
            }
        }
    }

    @Test
    void aCallWithoutItsKeyIsUnauthenticatedAndAnAddressDeniedIsPermissionDenied() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = gateway("""
                       - id: keyed
                         uri: ${ORIGIN}
                         predicates: [ "Path=/test.Echo/**" ]
                         filters:
                           - name: ApiKeyAuth
                             args: { header: X-Key, keys: { alice: "sha256:%s" } }
                       - id: denied
                         uri: ${ORIGIN}
                         predicates: [ "Path=/test.Denied/**" ]
                         filters:
                           - name: IpFilter
                             args: { deny: [ 127.0.0.1 ] }
                     """.formatted("0".repeat(64)), Map.of("ORIGIN", origin.uri()))) {
            ManagedChannel channel = GrpcEcho.plaintext(gw.port());
            try {
                StatusRuntimeException e = callFails(channel);
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
                assertThat(e.getStatus().getDescription()).contains("API key is required");
                Metadata wrongKey = new Metadata();
                wrongKey.put(Metadata.Key.of("x-key", Metadata.ASCII_STRING_MARSHALLER), "not-the-key");
                CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS);
                StatusRuntimeException wrong = gatewayAnswered(statusOf(
                        () -> ClientCalls.blockingUnaryCall(io.grpc.ClientInterceptors.intercept(channel,
                                MetadataUtils.newAttachHeadersInterceptor(wrongKey)), GrpcEcho.UNARY, options,
                                GrpcEcho.text("x"))));
                assertThat(wrong.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);

                StatusRuntimeException denied = gatewayAnswered(statusOf(
                        () -> ClientCalls.blockingUnaryCall(channel, GrpcEcho.method("Denied",
                                io.grpc.MethodDescriptor.MethodType.UNARY).toBuilder()
                                .setFullMethodName("test.Denied/Unary").build(), options, GrpcEcho.text("x"))));
                assertThat(denied.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
                assertThat(origin.requestCount()).isZero();
            } finally {
                GrpcEcho.close(channel);
            }
        }
    }

    @Test
    void aMessageOverTheRouteSizeLimitIsResourceExhausted() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = gateway("""
                       - id: rpc
                         uri: ${ORIGIN}
                         predicates: [ "Path=/test.Echo/**" ]
                         filters: [ "RequestSize=1KB" ]
                     """, Map.of("ORIGIN", origin.uri()))) {
            ManagedChannel channel = GrpcEcho.plaintext(gw.port());
            try {
                StatusRuntimeException e = callFails(channel, new byte[64 << 10], Duration.ofSeconds(20));
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                assertThat(e.getStatus().getDescription()).contains("larger than");
            } finally {
                GrpcEcho.close(channel);
            }
        }
    }

    @Test
    void overTlsTheClientGetsTheSameAnswers() throws Exception {
        TestPki pki = TestPki.create("gRPC CA");
        TestPki.Issued cert = pki.issue("gw", "localhost", "localhost");
        try (RunningGateway gw = RunningGateway.start("""
                server:
                  address: 127.0.0.1
                  port: 0
                  http2:
                    enabled: true
                  ssl:
                    certificate: ${CERT}
                    certificate-private-key: ${KEY}
                admin:
                  port: 0
                routes:
                  - id: rpc
                    uri: http://127.0.0.1:${PORT}
                    predicates: [ "Path=/test.Echo/**" ]
                """, Map.of("CERT", cert.cert().toString(), "KEY", cert.key().toString(),
                "PORT", Integer.toString(deadPort())))) {
            ManagedChannel channel = GrpcEcho.tls(gw.port(), pki.caCert());
            try {
                assertThat(callFails(channel).getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
                StatusRuntimeException e = gatewayAnswered(statusOf(
                        () -> ClientCalls.blockingUnaryCall(channel, GrpcEcho.method("Nothing",
                                io.grpc.MethodDescriptor.MethodType.UNARY).toBuilder()
                                .setFullMethodName("test.Nothing/Unary").build(),
                                CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS), GrpcEcho.text("x"))));
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
            } finally {
                GrpcEcho.close(channel);
            }
        }
    }

    @Test
    void gRpcOverHttp11IsRefusedSayingWhatIsNeeded() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = gateway("""
                       - id: rpc
                         uri: ${ORIGIN}
                         predicates: [ "Path=/**" ]
                     """, Map.of("ORIGIN", origin.uri()));
             RawClient client = gw.raw()) {
            client.send("POST /test.Echo/Unary HTTP/1.1\r\nHost: t\r\nContent-Type: application/grpc\r\n"
                    + "Content-Length: 5\r\n\r\n\0\0\0\0\0");
            RawClient.Response r = client.read();
            assertThat(r.status()).isEqualTo(505);
            assertThat(r.bodyText()).contains("gRPC needs HTTP/2", "gRPC-Web");
            assertThat(origin.requestCount()).isZero();
        }
    }

    @Test
    void eachCallIsCountedByTheStatusItsClientGot() throws Exception {
        GatewayMetrics metrics = new GatewayMetrics();
        Gateway.Observers observers = new Gateway.Observers(metrics, PoolListener.NOOP, ConnectionListener.NOOP);
        try (RunningGateway gw = RunningGateway.start(H2C + """
                  - id: rpc
                    uri: http://127.0.0.1:${PORT}
                    predicates: [ "Path=/test.Echo/**" ]
                """, Map.of("PORT", Integer.toString(deadPort())), observers)) {
            ManagedChannel channel = GrpcEcho.plaintext(gw.port());
            try {
                callFails(channel);
                callFails(channel);
            } finally {
                GrpcEcho.close(channel);
            }
            PrometheusText s = new PrometheusText(metrics.registry().scrape());
            assertThat(s.value("loomgate_grpc_requests_total", "grpc_status=UNAVAILABLE", "route=rpc"))
                    .isEqualTo(2);
            assertThat(s.value("loomgate_requests_total", "route=rpc", "method=POST", "status=2xx")).isEqualTo(2);
        } finally {
            metrics.close();
        }
    }
}
