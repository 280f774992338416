package io.loomgate.it;

import static io.loomgate.it.GrpcEcho.deadline;
import static io.loomgate.it.GrpcEcho.observer;
import static io.loomgate.it.GrpcGatewayAnswersTest.statusOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsServerCredentials;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestPki;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A gRPC origin over TLS: grpc-java's server with a certificate from a private CA the test makes, behind an
 * {@code https://} upstream with {@code upstream.http2: true} (h2 by ALPN) trusting that CA. Unary and streaming calls
 * work; a gateway that trusts another CA gives the client UNAVAILABLE in gRPC's own terms, not an HTML 502.
 */
class GrpcOriginOverTlsTest {
    private TestPki pki;
    private GrpcEcho origin;

    @BeforeEach
    void start() throws Exception {
        TestPki.requireOpenssl();
        pki = TestPki.create("gRPC origin CA");
        TestPki.Issued cert = pki.issue("grpc-origin", "localhost", "localhost");
        origin = new GrpcEcho(TlsServerCredentials.create(cert.cert().toFile(), cert.key().toFile()));
    }

    @AfterEach
    void stop() throws Exception {
        origin.close();
    }

    private RunningGateway gateway(Path trustedCa) throws Exception {
        return RunningGateway.start("""
                server:
                  address: 127.0.0.1
                  port: 0
                  http2:
                    enabled: true
                admin:
                  port: 0
                upstream:
                  http2: true
                  ssl:
                    trust-certificate: ${CA}
                routes:
                  - id: rpc
                    uri: https://localhost:${ORIGIN_PORT}
                    predicates: [ "Path=/test.Echo/**" ]
                """, Map.of("CA", trustedCa.toString(), "ORIGIN_PORT", Integer.toString(origin.port())));
    }

    @Test
    void unaryAndStreamingCallsReachATlsOriginOverH2() throws Exception {
        try (RunningGateway gw = gateway(pki.caCert())) {
            ManagedChannel channel = GrpcEcho.plaintext(gw.port());
            try {
                assertThat(GrpcEcho.text(ClientCalls.blockingUnaryCall(channel, GrpcEcho.UNARY, deadline(30),
                        GrpcEcho.text("over tls to the origin")))).isEqualTo("over tls to the origin");

                List<String> got = new ArrayList<>();
                ClientCalls.blockingServerStreamingCall(channel, GrpcEcho.SERVER_STREAM, deadline(30),
                        GrpcEcho.text("40")).forEachRemaining(m -> got.add(GrpcEcho.text(m)));
                assertThat(got).hasSize(40).startsWith("message 0").endsWith("message 39");

                CompletableFuture<String> counted = new CompletableFuture<>();
                StreamObserver<byte[]> up = ClientCalls.asyncClientStreamingCall(
                        channel.newCall(GrpcEcho.CLIENT_STREAM, deadline(30)), observer(counted));
                for (int i = 0; i < 25; i++) {
                    up.onNext(new byte[1000]);
                }
                up.onCompleted();
                assertThat(counted.get(30, TimeUnit.SECONDS)).isEqualTo("25 25000");

                List<String> echoed = new ArrayList<>();
                CompletableFuture<String> bidiDone = new CompletableFuture<>();
                StreamObserver<byte[]> bidi = ClientCalls.asyncBidiStreamingCall(
                        channel.newCall(GrpcEcho.BIDI, deadline(30)), new StreamObserver<>() {
                            @Override
                            public void onNext(byte[] value) {
                                echoed.add(GrpcEcho.text(value));
                            }

                            @Override
                            public void onError(Throwable t) {
                                bidiDone.completeExceptionally(t);
                            }

                            @Override
                            public void onCompleted() {
                                bidiDone.complete("done");
                            }
                        });
                for (int i = 0; i < 10; i++) {
                    bidi.onNext(GrpcEcho.text("ping " + i));
                }
                bidi.onCompleted();
                assertThat(bidiDone.get(30, TimeUnit.SECONDS)).isEqualTo("done");
                assertThat(echoed).hasSize(10).startsWith("ping 0").endsWith("ping 9");

                StatusRuntimeException failed = statusOf(() -> ClientCalls.blockingUnaryCall(channel,
                        GrpcEcho.UNARY, deadline(30), GrpcEcho.text("fail on purpose")));
                assertThat(failed.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
                assertThat(failed.getStatus().getDescription()).isEqualTo("on purpose");
            } finally {
                GrpcEcho.close(channel);
            }
        }
    }

    @Test
    void anOriginCertificateFromAnotherCaIsUnavailableNotAnHtmlPage() throws Exception {
        TestPki other = TestPki.create("not the origin's CA");
        try (RunningGateway gw = gateway(other.caCert())) {
            ManagedChannel channel = GrpcEcho.plaintext(gw.port());
            try {
                StatusRuntimeException e = statusOf(() -> ClientCalls.blockingUnaryCall(channel, GrpcEcho.UNARY,
                        deadline(30), GrpcEcho.text("x")));
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
                // the gateway's own gRPC answer (grpc-status in trailers), not grpc-java's translation of an
                // HTTP 502 page ("HTTP status code 502 ... invalid content-type: text/html")
                assertThat(e.getStatus().getDescription()).doesNotContain("HTTP status code", "text/html");
                assertThat(origin.cancelled).isEmpty();
            } finally {
                GrpcEcho.close(channel);
            }
        }
    }

}
