package io.loomgate.it;

import static io.loomgate.it.GrpcGatewayAnswersTest.statusOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.loomgate.cli.Gateway;
import io.loomgate.observe.GatewayMetrics;
import io.loomgate.server.ConnectionListener;
import io.loomgate.testkit.PrometheusText;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import io.loomgate.upstream.PoolListener;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * A gRPC call answered by an origin that does not speak gRPC (a 404 page, a proxy's 503: no {@code grpc-status}) is
 * counted and logged with the status the client makes of it, by gRPC's HTTP-to-gRPC mapping: the one grpc-java
 * reports here. Session 55's hunt: a gRPC route to a plain HTTP origin answering 404 was counted
 * {@code grpc_status="UNKNOWN"} (access log {@code loomgate.grpc_status: 2}), where the client saw UNIMPLEMENTED.
 */
class GrpcStatusOfNonGrpcAnswersTest {
    private static final String YAML = """
            server:
              address: 127.0.0.1
              port: 0
              http2:
                enabled: true
            admin:
              port: 0
            routes:
              - id: rpc
                uri: ${ORIGIN}
                predicates: [ "Path=/test.Echo/**" ]
            """;

    @Test
    void eachNonGrpcAnswerIsCountedAsTheStatusTheClientReports() throws Exception {
        // HTTP status of the origin's page → the method that gets it
        Map<Integer, String> pages = new LinkedHashMap<>();
        pages.put(404, "Missing");
        pages.put(503, "Busy");
        pages.put(403, "Denied");
        pages.put(429, "Throttled"); // an origin's 429: UNAVAILABLE to the client (the gateway's: RESOURCE_EXHAUSTED)
        GatewayMetrics metrics = new GatewayMetrics();
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(YAML, Map.of("ORIGIN", origin.uri()),
                     new Gateway.Observers(metrics, PoolListener.NOOP, ConnectionListener.NOOP))) {
            origin.fallback(r -> pages.entrySet().stream().filter(e -> r.target().endsWith("/" + e.getValue()))
                    .findFirst().map(e -> Reply.status(e.getKey())).orElse(Reply.status(500)));
            ManagedChannel channel = GrpcEcho.plaintext(gw.port());
            Map<String, Integer> clientSaw = new LinkedHashMap<>();
            try {
                for (String method : pages.values()) {
                    MethodDescriptor<byte[], byte[]> m = GrpcEcho.method(method, MethodDescriptor.MethodType.UNARY);
                    StatusRuntimeException e = statusOf(() -> ClientCalls.blockingUnaryCall(channel, m,
                            GrpcEcho.deadline(20), GrpcEcho.text("hello")));
                    assertThat(e.getStatus().getDescription()).as("a page, not the gateway's answer")
                            .contains("HTTP status code");
                    clientSaw.merge(e.getStatus().getCode().name(), 1, Integer::sum);
                }
            } finally {
                GrpcEcho.close(channel);
            }
            assertThat(clientSaw).containsOnlyKeys(Status.Code.UNIMPLEMENTED.name(), Status.Code.UNAVAILABLE.name(),
                    Status.Code.PERMISSION_DENIED.name());
            // Each exchange is counted as it ends, which may be just after the client has its answer.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            PrometheusText s = new PrometheusText(metrics.registry().scrape());
            while (total(s) < pages.size() && System.nanoTime() - deadline < 0) {
                LockSupport.parkNanos(10_000_000);
                s = new PrometheusText(metrics.registry().scrape());
            }
            for (Map.Entry<String, Integer> saw : clientSaw.entrySet()) {
                assertThat(s.value("loomgate_grpc_requests_total", "grpc_status=" + saw.getKey(), "route=rpc"))
                        .as("calls counted %s (%s)", saw.getKey(), grpcLines(s))
                        .isEqualTo(saw.getValue().doubleValue());
            }
        } finally {
            metrics.close();
        }
    }

    private static double total(PrometheusText s) {
        return s.toString().lines().filter(l -> l.startsWith("loomgate_grpc_requests_total{"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    private static String grpcLines(PrometheusText s) {
        return String.join("; ", s.toString().lines().filter(l -> l.startsWith("loomgate_grpc_requests_total{"))
                .toList());
    }
}
