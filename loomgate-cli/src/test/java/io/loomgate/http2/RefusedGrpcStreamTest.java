package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.loomgate.cli.ServedGateway;
import io.loomgate.testkit.RunningGateway;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Session 58: a streaming gRPC call (grpc-java's client, through the gateway over h2c) whose stream the origin refuses
 * while the call is still sending (RST_STREAM REFUSED_STREAM, or a GOAWAY below it: nothing processed, RFC 9113
 * §8.7). It goes again on a fresh stream with its messages so far, then the rest as the client sends them, with no
 * wait for the client: a bidi client that waits for the echo of its first message gets it. A call whose messages had
 * passed the copy's 65,535 bytes when refused cannot go again: the client gets a trailers-only {@code UNAVAILABLE}
 * from the gateway. Until session 58 every refused streaming call had its input cut: {@code UNAVAILABLE} after
 * 100 ms. The origin is {@link ScriptedH2cOrigin} answering as a gRPC echo or a client-streaming count.
 */
class RefusedGrpcStreamTest {
    private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };
    private static final MethodDescriptor<byte[], byte[]> BIDI = method("Bidi",
            MethodDescriptor.MethodType.BIDI_STREAMING);
    private static final MethodDescriptor<byte[], byte[]> CLIENT_STREAM = method("ClientStream",
            MethodDescriptor.MethodType.CLIENT_STREAMING);
    /** How long the client waits for an answer to its messages (the route's timeout is the default 30 s). */
    private static final Duration WAIT = Duration.ofSeconds(5);
    /** The client-streaming client's pause after the refusal: longer than the 100 ms cut before session 58. */
    private static final Duration CLIENT_PAUSE = Duration.ofMillis(300);

    private static MethodDescriptor<byte[], byte[]> method(String name, MethodDescriptor.MethodType type) {
        return MethodDescriptor.<byte[], byte[]>newBuilder().setType(type)
                .setFullMethodName(MethodDescriptor.generateFullMethodName("test.Echo", name))
                .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();
    }

    private static ServedGateway gateway(ScriptedH2cOrigin origin) throws Exception {
        String yaml = """
                server:
                  address: 127.0.0.1
                  port: 0
                  http2:
                    enabled: true
                admin:
                  port: ${ADMIN_PORT}
                routes:
                  - id: rpc
                    uri: ${ORIGIN}
                    predicates: [ "Path=/test.Echo/**" ]
                """;
        return RunningGateway.servedWithAdmin(yaml, "refused-grpc.yaml", Map.of("ORIGIN", origin.uri()));
    }

    private static ScriptedH2cOrigin origin(boolean openWindows, ScriptedH2cOrigin.Refusal how, int atBytes,
            ScriptedH2cOrigin.Answer answer) throws IOException {
        ScriptedH2cOrigin origin = new ScriptedH2cOrigin(openWindows);
        origin.refusal = how;
        origin.refuseAtBytes = atBytes;
        origin.refusals.set(1);
        origin.answer = answer;
        return origin;
    }

    /** The client's side of one call: the messages it got, and its status once closed. */
    private static final class Call extends ClientCall.Listener<byte[]> {
        final BlockingQueue<byte[]> messages = new LinkedBlockingQueue<>();
        final CompletableFuture<Status> closed = new CompletableFuture<>();
        final ClientCall<byte[], byte[]> call;

        Call(ManagedChannel channel, MethodDescriptor<byte[], byte[]> method) {
            call = channel.newCall(method, CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS));
            call.start(this, new Metadata());
            call.request(Integer.MAX_VALUE);
        }

        @Override
        public void onMessage(byte[] message) {
            messages.add(message);
        }

        @Override
        public void onClose(Status status, Metadata trailers) {
            closed.complete(status);
        }

        /** The next message within {@link #WAIT}; fails with the call's status if it closed instead. */
        byte[] next() throws Exception {
            byte[] m = messages.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(m).as("a message within %s (the call: %s)", WAIT, closed.getNow(null)).isNotNull();
            return m;
        }

        Status status() throws Exception {
            return closed.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private static ManagedChannel channel(ServedGateway gw) {
        return io.grpc.Grpc.newChannelBuilderForAddress("127.0.0.1", gw.port(), InsecureChannelCredentials.create())
                .build();
    }

    private static byte[] message(int size, int seed) {
        byte[] b = new byte[size];
        Arrays.fill(b, (byte) seed);
        return b;
    }

    /** The messages as gRPC frames them on the stream (uncompressed, a 5-byte prefix each). */
    private static byte[] framed(byte[]... messages) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] m : messages) {
            out.write(0);
            out.writeBytes(new byte[] {(byte) (m.length >>> 24), (byte) (m.length >>> 16), (byte) (m.length >>> 8),
                (byte) m.length});
            out.writeBytes(m);
        }
        return out.toByteArray();
    }

    /**
     * Polls (with a deadline) until the origin refused the first stream: the client's first call through a fresh
     * channel (connect, grpc-java's first use in the JVM) is not what {@link #WAIT} times.
     */
    private static void awaitRefusal(ScriptedH2cOrigin origin) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (origin.connections().isEmpty() || origin.connections().getFirst().refused.isEmpty()) {
            assertThat(System.nanoTime()).as("the origin refused the stream in time").isLessThan(end);
            Thread.sleep(5);
        }
    }

    private static void close(ManagedChannel channel) throws InterruptedException {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }

    @Test
    void aBidiCallRefusedWhileItWaitsForItsEchoGoesOnAFreshStream() throws Exception {
        byte[] first = message(1_000, 1);
        byte[] second = message(2_000, 2);
        try (ScriptedH2cOrigin origin = origin(false, ScriptedH2cOrigin.Refusal.REFUSED_STREAM, 1_005,
                ScriptedH2cOrigin.Answer.GRPC_ECHO);
             ServedGateway gw = gateway(origin)) {
            ManagedChannel channel = channel(gw);
            try {
                Call call = new Call(channel, BIDI);
                call.call.sendMessage(first); // refused once its 1,005 bytes came; the client waits for the echo
                awaitRefusal(origin);
                assertThat(call.next()).as("the echo of the first message").isEqualTo(first);
                call.call.sendMessage(second);
                assertThat(call.next()).as("the echo of the second message").isEqualTo(second);
                call.call.halfClose();
                assertThat(call.status().getCode()).isEqualTo(Status.Code.OK);
            } finally {
                close(channel);
            }
            List<ScriptedH2cOrigin.Conn> conns = origin.connections();
            assertThat(conns.getFirst().refused).as("the first stream was refused mid-call").hasSize(1);
            List<byte[]> answered = conns.stream().flatMap(c -> c.answeredBodies.stream()).toList();
            assertThat(answered).as("calls the origin answered").hasSize(1);
            assertThat(answered.getFirst()).as("the messages the origin got: once, in order")
                    .isEqualTo(framed(first, second));
        }
    }

    @Test
    void aClientStreamingCallRefusedMidStreamGoesAgainWithItsMessagesSoFar() throws Exception {
        byte[] first = message(1_000, 3);
        byte[] second = message(3_000, 4);
        try (ScriptedH2cOrigin origin = origin(false, ScriptedH2cOrigin.Refusal.GOAWAY_BELOW, 1_005,
                ScriptedH2cOrigin.Answer.GRPC_COUNT);
             ServedGateway gw = gateway(origin)) {
            ManagedChannel channel = channel(gw);
            try {
                Call call = new Call(channel, CLIENT_STREAM);
                call.call.sendMessage(first);
                awaitRefusal(origin);
                Thread.sleep(CLIENT_PAUSE.toMillis()); // a client slower than the old 100 ms cut
                call.call.sendMessage(second);
                call.call.halfClose();
                assertThat(new String(call.next(), StandardCharsets.US_ASCII)).as("the origin's count of bytes")
                        .isEqualTo(Integer.toString(framed(first, second).length));
                assertThat(call.status().getCode()).isEqualTo(Status.Code.OK);
            } finally {
                close(channel);
            }
            List<byte[]> answered = origin.connections().stream().flatMap(c -> c.answeredBodies.stream()).toList();
            assertThat(answered).as("calls the origin answered").hasSize(1);
            assertThat(answered.getFirst()).isEqualTo(framed(first, second));
        }
    }

    @Test
    void aCallRefusedPastTheCopyGetsUnavailableFromTheGateway() throws Exception {
        byte[] big = message(40_000, 5);
        try (ScriptedH2cOrigin origin = origin(true, ScriptedH2cOrigin.Refusal.REFUSED_STREAM, 70_000,
                ScriptedH2cOrigin.Answer.GRPC_COUNT);
             ServedGateway gw = gateway(origin)) {
            ManagedChannel channel = channel(gw);
            try {
                Call call = new Call(channel, CLIENT_STREAM);
                call.call.sendMessage(big);
                call.call.sendMessage(big); // 80,010 bytes: past the copy's 65,535 when the refusal comes at 70,000
                Status status = call.status();
                assertThat(status.getCode()).as("%s", status).isEqualTo(Status.Code.UNAVAILABLE);
                assertThat(status.getDescription()).as("the gateway's grpc-message, not grpc-java's reading of an"
                        + " HTTP error").doesNotContain("HTTP status code");
            } finally {
                close(channel);
            }
            assertThat(origin.connections().getFirst().refused).hasSize(1);
            assertThat(origin.connections().stream().mapToInt(c -> c.answeredBodies.size()).sum())
                    .as("calls the origin answered: none").isZero();
        }
    }
}
