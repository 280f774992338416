package io.loomgate.it;

import static io.loomgate.it.GrpcEcho.deadline;
import static io.loomgate.it.GrpcEcho.observer;
import static io.loomgate.it.GrpcGatewayAnswersTest.statusOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.loomgate.cli.Gateway;
import io.loomgate.observe.GatewayMetrics;
import io.loomgate.server.ConnectionListener;
import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.PrometheusText;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestPki;
import io.loomgate.upstream.PoolListener;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Real gRPC through the gateway: grpc-java's client, the gateway (h2c or h2 over TLS downstream), grpc-java's server
 * as an h2c origin. Every kind of call, statuses and trailers as the origin sent them, large messages, deadlines that
 * reach the origin as a cancel, and an origin that dies mid-stream.
 */
class GrpcThroughGatewayTest {
    private static final String ROUTES = """
            routes:
              - id: rpc
                uri: h2c://127.0.0.1:${ORIGIN_PORT}
                predicates: [ "Path=/test.Echo/**" ]
            """;
    private static final String H2C = """
            server:
              address: 127.0.0.1
              port: 0
              http2:
                enabled: true
            admin:
              port: 0
            """ + ROUTES;

    private GrpcEcho origin;
    private GatewayMetrics metrics;
    private RunningGateway gateway;
    private ManagedChannel channel;

    @BeforeEach
    void start() throws Exception {
        origin = new GrpcEcho();
        metrics = new GatewayMetrics();
        gateway = RunningGateway.start(H2C, Map.of("ORIGIN_PORT", Integer.toString(origin.port())),
                new Gateway.Observers(metrics, PoolListener.NOOP, ConnectionListener.NOOP));
        channel = GrpcEcho.plaintext(gateway.port());
    }

    @AfterEach
    void stop() throws Exception {
        GrpcEcho.close(channel);
        gateway.close();
        metrics.close();
        origin.close();
    }

    @Test
    void aUnaryCallGoesThroughAndAnOriginsErrorComesBackWithItsMessage() throws InterruptedException {
        byte[] answer = ClientCalls.blockingUnaryCall(channel, GrpcEcho.UNARY, deadline(20), GrpcEcho.text("hello"));
        assertThat(GrpcEcho.text(answer)).isEqualTo("hello");

        // The origin's trailers (grpc-status, a percent-encoded grpc-message) reach the client intact.
        StatusRuntimeException e = statusOf(() -> ClientCalls.blockingUnaryCall(channel, GrpcEcho.UNARY, deadline(20),
                GrpcEcho.text("fail 100% wrong: café ☕\nsecond line")));
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(e.getStatus().getDescription()).isEqualTo("100% wrong: café ☕\nsecond line");

        // The exchange is counted when it ends, which may be just after the client has the trailers (the request
        // body's relay beside the response is joined first): poll with a deadline.
        PrometheusText s = scrapeUntil(() -> new PrometheusText(metrics.registry().scrape()),
                t -> t.has("loomgate_grpc_requests_total")
                        && t.toString().contains("grpc_status=\"FAILED_PRECONDITION\""));
        assertThat(s.value("loomgate_grpc_requests_total", "grpc_status=OK", "route=rpc")).isEqualTo(1);
        assertThat(s.value("loomgate_grpc_requests_total", "grpc_status=FAILED_PRECONDITION", "route=rpc"))
                .isEqualTo(1);
    }

    private static PrometheusText scrapeUntil(Supplier<PrometheusText> scrape, Predicate<PrometheusText> done)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        PrometheusText t = scrape.get();
        while (!done.test(t) && System.nanoTime() < deadline) {
            Thread.sleep(10);
            t = scrape.get();
        }
        return t;
    }

    @Test
    void aServerStreamArrivesWholeAndInOrder() {
        Iterator<byte[]> it = ClientCalls.blockingServerStreamingCall(channel, GrpcEcho.SERVER_STREAM, deadline(30),
                GrpcEcho.text("1000"));
        List<String> got = new ArrayList<>();
        it.forEachRemaining(m -> got.add(GrpcEcho.text(m)));
        assertThat(got).hasSize(1000);
        assertThat(got.get(0)).isEqualTo("message 0");
        assertThat(got.get(999)).isEqualTo("message 999");
    }

    @Test
    void aClientStreamIsCountedWholeByTheOrigin() throws Exception {
        CompletableFuture<String> result = new CompletableFuture<>();
        ClientCall<byte[], byte[]> call = channel.newCall(GrpcEcho.CLIENT_STREAM, deadline(30));
        StreamObserver<byte[]> requests = ClientCalls.asyncClientStreamingCall(call, observer(result));
        for (int i = 0; i < 100; i++) {
            requests.onNext(new byte[1024]);
        }
        requests.onCompleted();
        assertThat(result.get(30, TimeUnit.SECONDS)).isEqualTo("100 102400");
    }

    @Test
    void aBidirectionalStreamFlowsBothWaysAtOnce() throws Exception {
        BlockingQueue<String> echoed = new LinkedBlockingQueue<>();
        CompletableFuture<String> done = new CompletableFuture<>();
        ClientCall<byte[], byte[]> call = channel.newCall(GrpcEcho.BIDI, deadline(30));
        StreamObserver<byte[]> requests = ClientCalls.asyncBidiStreamingCall(call, new StreamObserver<>() {
            @Override
            public void onNext(byte[] value) {
                echoed.add(GrpcEcho.text(value));
            }

            @Override
            public void onError(Throwable t) {
                done.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {
                done.complete("completed");
            }
        });
        // Lockstep: each message's echo must come back before the next is sent, so nothing may wait for the end of
        // the request stream (a proxy that buffered the upload, or read the response only after it, would hang).
        for (int i = 0; i < 20; i++) {
            requests.onNext(GrpcEcho.text("ping " + i));
            assertThat(echoed.poll(10, TimeUnit.SECONDS)).isEqualTo("ping " + i);
        }
        requests.onCompleted();
        assertThat(done.get(10, TimeUnit.SECONDS)).isEqualTo("completed");
    }

    @Test
    void largeMessagesPassBothWays() {
        byte[] big = new byte[8 << 20];
        new Random(12).nextBytes(big);
        byte[] answer = ClientCalls.blockingUnaryCall(channel, GrpcEcho.UNARY, deadline(60), big);
        assertThat(Arrays.equals(answer, big)).isTrue();
    }

    @Test
    void aDeadlineShorterThanTheOriginsWorkIsDeadlineExceededAndTheOriginSeesTheCancel() throws Exception {
        // A first call opens the channel's connection: on a busy machine that alone can outlast a short deadline,
        // and the call would then expire in the client without ever reaching the gateway.
        ClientCalls.blockingUnaryCall(channel, GrpcEcho.UNARY, deadline(20), GrpcEcho.text("warm"));
        long t0 = System.nanoTime();
        StatusRuntimeException e = statusOf(() -> ClientCalls.blockingUnaryCall(channel, GrpcEcho.UNARY,
                CallOptions.DEFAULT.withDeadlineAfter(300, TimeUnit.MILLISECONDS), GrpcEcho.text("sleep 10000")));
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
        assertThat(origin.cancelled.poll(10, TimeUnit.SECONDS)).isEqualTo("Unary");
        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(9_000);
    }

    @Test
    void anOriginThatDiesMidStreamEndsTheCallUnavailable() throws Exception {
        Iterator<byte[]> it = ClientCalls.blockingServerStreamingCall(channel, GrpcEcho.SERVER_STREAM, deadline(30),
                GrpcEcho.text("3 then wait"));
        for (int i = 0; i < 3; i++) {
            assertThat(GrpcEcho.text(it.next())).isEqualTo("message " + i);
        }
        assertThat(origin.streamWaiting.await(10, TimeUnit.SECONDS)).isTrue();
        origin.kill();
        StatusRuntimeException e = statusOf(it::hasNext);
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    }

    @Test
    void aDeadOriginIsUnavailable() throws Exception {
        int dead = FreePorts.refused();
        try (RunningGateway gw = RunningGateway.start(H2C, Map.of("ORIGIN_PORT", Integer.toString(dead)))) {
            ManagedChannel c = GrpcEcho.plaintext(gw.port());
            try {
                StatusRuntimeException e = statusOf(() -> ClientCalls.blockingUnaryCall(c, GrpcEcho.UNARY,
                        deadline(20), GrpcEcho.text("x")));
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
            } finally {
                GrpcEcho.close(c);
            }
        }
    }

    @Test
    void overTlsEveryKindOfCallWorksToo() throws Exception {
        TestPki pki = TestPki.create("gRPC TLS CA");
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
                """ + ROUTES, Map.of("CERT", cert.cert().toString(), "KEY", cert.key().toString(),
                "ORIGIN_PORT", Integer.toString(origin.port())))) {
            ManagedChannel tls = GrpcEcho.tls(gw.port(), pki.caCert());
            try {
                assertThat(GrpcEcho.text(ClientCalls.blockingUnaryCall(tls, GrpcEcho.UNARY, deadline(20),
                        GrpcEcho.text("over tls")))).isEqualTo("over tls");
                List<String> got = new ArrayList<>();
                ClientCalls.blockingServerStreamingCall(tls, GrpcEcho.SERVER_STREAM, deadline(20),
                        GrpcEcho.text("50")).forEachRemaining(m -> got.add(GrpcEcho.text(m)));
                assertThat(got).hasSize(50);
                StatusRuntimeException e = statusOf(() -> ClientCalls.blockingUnaryCall(tls, GrpcEcho.UNARY,
                        CallOptions.DEFAULT.withDeadlineAfter(300, TimeUnit.MILLISECONDS),
                        GrpcEcho.text("sleep 10000")));
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
            } finally {
                GrpcEcho.close(tls);
            }
        }
    }

}
