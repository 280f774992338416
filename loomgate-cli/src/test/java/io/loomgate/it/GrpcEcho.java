package io.loomgate.it;

import io.grpc.CallOptions;
import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.TlsChannelCredentials;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A real grpc-java service and its client side, on byte[] messages with hand-written method descriptors (no protoc,
 * no generated stubs). The server is grpc-java's Netty server speaking h2c with prior knowledge, as gRPC servers do
 * in plaintext; it records every call it saw cancelled.
 *
 * <p>Methods of {@code test.Echo}:
 * <ul>
 *   <li>{@code Unary}: echoes the message; {@code "sleep <ms>"} answers after that long (unless cancelled first),
 *       {@code "fail <text>"} ends with FAILED_PRECONDITION and that text, {@code "deadline <text>"} with
 *       DEADLINE_EXCEEDED (the origin's own verdict, trailers-only);</li>
 *   <li>{@code ServerStream}: {@code "<n>"} answers n messages {@code "message i"}; {@code "<n> then wait"} sends them
 *       and then waits to be cancelled (or killed) without ending;</li>
 *   <li>{@code ClientStream}: answers the number of messages and bytes it got, {@code "<count> <bytes>"};</li>
 *   <li>{@code Bidi}: echoes each message as it arrives, and ends when the client does.</li>
 * </ul>
 */
final class GrpcEcho implements AutoCloseable {
    static final String SERVICE = "test.Echo";

    static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
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

    static final MethodDescriptor<byte[], byte[]> UNARY = method("Unary", MethodDescriptor.MethodType.UNARY);
    static final MethodDescriptor<byte[], byte[]> SERVER_STREAM =
            method("ServerStream", MethodDescriptor.MethodType.SERVER_STREAMING);
    static final MethodDescriptor<byte[], byte[]> CLIENT_STREAM =
            method("ClientStream", MethodDescriptor.MethodType.CLIENT_STREAMING);
    static final MethodDescriptor<byte[], byte[]> BIDI = method("Bidi", MethodDescriptor.MethodType.BIDI_STREAMING);

    /** Method names of the calls the server saw cancelled, in order. */
    final BlockingQueue<String> cancelled = new LinkedBlockingQueue<>();
    /** Method names of the calls the server was asked, in order: a call sent twice (retried) is here twice. */
    final BlockingQueue<String> started = new LinkedBlockingQueue<>();
    /**
     * The time each call had left by its deadline when its handler started, in ms (what the {@code grpc-timeout} it
     * arrived with said, less grpc-java's own delay); -1 for a call without one.
     */
    final BlockingQueue<Long> deadlineLeftMs = new LinkedBlockingQueue<>();
    /** Counted down when a {@code "then wait"} stream has sent its messages. */
    final CountDownLatch streamWaiting = new CountDownLatch(1);
    private final ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();
    private final Server server;

    GrpcEcho() throws IOException {
        this(InsecureServerCredentials.create());
    }

    /** The service with these credentials: {@code TlsServerCredentials} for a gRPC origin over TLS (h2 by ALPN). */
    GrpcEcho(io.grpc.ServerCredentials credentials) throws IOException {
        ServerServiceDefinition service = ServerServiceDefinition.builder(SERVICE)
                .addMethod(UNARY, ServerCalls.asyncUnaryCall(this::unary))
                .addMethod(SERVER_STREAM, ServerCalls.asyncServerStreamingCall(this::serverStream))
                .addMethod(CLIENT_STREAM, ServerCalls.asyncClientStreamingCall(this::clientStream))
                .addMethod(BIDI, ServerCalls.asyncBidiStreamingCall(this::bidi))
                .build();
        server = io.grpc.Grpc.newServerBuilderForPort(0, credentials).addService(service)
                .maxInboundMessageSize(64 << 20).build().start();
    }

    static MethodDescriptor<byte[], byte[]> method(String name, MethodDescriptor.MethodType type) {
        return MethodDescriptor.<byte[], byte[]>newBuilder().setType(type)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
                .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();
    }

    /** Call options with a deadline this many seconds away. */
    static CallOptions deadline(long seconds) {
        return CallOptions.DEFAULT.withDeadlineAfter(seconds, TimeUnit.SECONDS);
    }

    /** An observer that completes {@code result} with the first message (or the call's failure). */
    static StreamObserver<byte[]> observer(CompletableFuture<String> result) {
        return new StreamObserver<>() {
            @Override
            public void onNext(byte[] value) {
                result.complete(text(value));
            }

            @Override
            public void onError(Throwable t) {
                result.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {
                result.complete("completed without a message");
            }
        };
    }

    static byte[] text(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    /** A plaintext (h2c prior knowledge) channel to a gateway or server port. */
    static ManagedChannel plaintext(int port) {
        return io.grpc.Grpc.newChannelBuilderForAddress("127.0.0.1", port, InsecureChannelCredentials.create())
                .maxInboundMessageSize(64 << 20).build();
    }

    /** A TLS channel (h2 by ALPN) to {@code localhost:port}, trusting this CA. */
    static ManagedChannel tls(int port, Path caCert) throws IOException {
        ChannelCredentials tls = TlsChannelCredentials.newBuilder().trustManager(caCert.toFile()).build();
        return io.grpc.Grpc.newChannelBuilderForAddress("localhost", port, tls).maxInboundMessageSize(64 << 20)
                .build();
    }

    static void close(ManagedChannel channel) throws InterruptedException {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }

    int port() {
        return server.getPort();
    }

    /** The origin dies: every connection is closed at once, streams in flight included. */
    void kill() throws InterruptedException {
        server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        kill();
        later.shutdownNow();
    }

    private void watchCancel(String method, StreamObserver<byte[]> out) {
        io.grpc.Deadline deadline = io.grpc.Context.current().getDeadline();
        deadlineLeftMs.add(deadline == null ? -1 : deadline.timeRemaining(TimeUnit.MILLISECONDS));
        started.add(method);
        ((ServerCallStreamObserver<byte[]>) out).setOnCancelHandler(() -> cancelled.add(method));
    }

    private void unary(byte[] request, StreamObserver<byte[]> out) {
        watchCancel("Unary", out);
        String t = text(request);
        if (t.startsWith("sleep ")) {
            ServerCallStreamObserver<byte[]> call = (ServerCallStreamObserver<byte[]>) out;
            later.schedule(() -> {
                if (!call.isCancelled()) {
                    out.onNext(text("slept"));
                    out.onCompleted();
                }
            }, Long.parseLong(t.substring(6)), TimeUnit.MILLISECONDS);
        } else if (t.startsWith("fail ")) {
            out.onError(Status.FAILED_PRECONDITION.withDescription(t.substring(5)).asRuntimeException());
        } else if (t.startsWith("deadline ")) {
            out.onError(Status.DEADLINE_EXCEEDED.withDescription(t.substring(9)).asRuntimeException());
        } else {
            out.onNext(request);
            out.onCompleted();
        }
    }

    private void serverStream(byte[] request, StreamObserver<byte[]> out) {
        watchCancel("ServerStream", out);
        String[] words = text(request).split(" ", 2);
        int n = Integer.parseInt(words[0]);
        for (int i = 0; i < n; i++) {
            out.onNext(text("message " + i));
        }
        if (words.length > 1) {
            streamWaiting.countDown(); // and never ends: cancelled or killed
        } else {
            out.onCompleted();
        }
    }

    private StreamObserver<byte[]> clientStream(StreamObserver<byte[]> out) {
        watchCancel("ClientStream", out);
        return new StreamObserver<>() {
            private int count;
            private long bytes;

            @Override
            public void onNext(byte[] value) {
                count++;
                bytes += value.length;
            }

            @Override
            public void onError(Throwable t) {
            }

            @Override
            public void onCompleted() {
                out.onNext(text(count + " " + bytes));
                out.onCompleted();
            }
        };
    }

    private StreamObserver<byte[]> bidi(StreamObserver<byte[]> out) {
        watchCancel("Bidi", out);
        return new StreamObserver<>() {
            @Override
            public void onNext(byte[] value) {
                out.onNext(value);
            }

            @Override
            public void onError(Throwable t) {
            }

            @Override
            public void onCompleted() {
                out.onCompleted();
            }
        };
    }
}
