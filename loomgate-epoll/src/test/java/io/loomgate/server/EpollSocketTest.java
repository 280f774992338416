package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The epoll socket's edges, each on real loopback sockets with a JDK socket as the peer: the read deadline
 * (SO_TIMEOUT), the watchdog's cut (shutdownInput), close racing a parked reader and a parked writer, half-close both
 * ways, a reset, and the fd never used after close. Bounds are generous (a loaded machine): the point is an answer,
 * never a hang.
 */
class EpollSocketTest {
    private static final long GENEROUS_SECONDS = 20;
    private EpollServerSocket server;

    @BeforeEach
    void listen() throws IOException {
        server = EpollServerSocket.listen(EpollPoller.shared(), new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                128);
    }

    @AfterEach
    void close() {
        server.close();
    }

    /** A connected pair: the JDK client and the epoll socket the server accepted for it. */
    private record Pair(Socket client, EpollSocket accepted) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            client.close();
            accepted.close();
        }
    }

    private Pair connect() throws Exception {
        CompletableFuture<Socket> accepted = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                accepted.complete(server.accept());
            } catch (Throwable t) {
                accepted.completeExceptionally(t);
            }
        });
        Socket client = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
        client.setSoTimeout((int) TimeUnit.SECONDS.toMillis(GENEROUS_SECONDS));
        return new Pair(client, (EpollSocket) accepted.get(GENEROUS_SECONDS, TimeUnit.SECONDS));
    }

    private static <T> T onVirtualThread(java.util.concurrent.Callable<T> body) throws Exception {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                f.complete(body.call());
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        try {
            return f.get(GENEROUS_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception x ? x : e;
        }
    }

    private static void awaitParked(Thread t) {
        long deadline = System.nanoTime() + Duration.ofSeconds(GENEROUS_SECONDS).toNanos();
        while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING) {
            assertThat(System.nanoTime()).as("thread parks").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    @Test
    void bytesBothWaysAndTheAddresses() throws Exception {
        try (Pair p = connect()) {
            p.client().getOutputStream().write("ping".getBytes(StandardCharsets.US_ASCII));
            byte[] b = new byte[16];
            int n = onVirtualThread(() -> p.accepted().getInputStream().read(b));
            assertThat(new String(b, 0, n, StandardCharsets.US_ASCII)).isEqualTo("ping");
            p.accepted().getOutputStream().write("pong".getBytes(StandardCharsets.US_ASCII));
            assertThat(p.client().getInputStream().readNBytes(4)).asString().isEqualTo("pong");
            assertThat(p.accepted().getRemoteSocketAddress()).isEqualTo(p.client().getLocalSocketAddress());
            assertThat(p.accepted().getLocalSocketAddress()).isEqualTo(p.client().getRemoteSocketAddress());
            assertThat(p.accepted().getChannel()).isNull();
        }
    }

    @Test
    void aReadLongerThanSoTimeoutThrowsAndTheSocketStaysUsable() throws Exception {
        try (Pair p = connect()) {
            p.accepted().setSoTimeout(200);
            long start = System.nanoTime();
            assertThatThrownBy(() -> onVirtualThread(() -> p.accepted().getInputStream().read(new byte[8])))
                    .isInstanceOf(SocketTimeoutException.class);
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(Duration.ofMillis(200).toNanos());
            p.client().getOutputStream().write(7);
            assertThat((int) onVirtualThread(() -> p.accepted().getInputStream().read())).isEqualTo(7);
        }
    }

    @Test
    void shutdownInputEndsAParkedReadWithTheEndOfStream() throws Exception {
        try (Pair p = connect()) {
            CompletableFuture<Integer> read = new CompletableFuture<>();
            Thread reader = Thread.ofVirtual().start(() -> {
                try {
                    read.complete(p.accepted().getInputStream().read(new byte[8]));
                } catch (Throwable t) {
                    read.completeExceptionally(t);
                }
            });
            awaitParked(reader);
            p.accepted().shutdownInput(); // what the watchdog's cut does
            assertThat(read.get(GENEROUS_SECONDS, TimeUnit.SECONDS)).isEqualTo(-1);
            assertThat(p.accepted().isInputShutdown()).isTrue();
        }
    }

    @Test
    void closeWhileAReaderIsParkedGivesItAnExceptionNotAHang() throws Exception {
        try (Pair p = connect()) {
            CompletableFuture<Integer> read = new CompletableFuture<>();
            Thread reader = Thread.ofVirtual().start(() -> {
                try {
                    read.complete(p.accepted().getInputStream().read(new byte[8]));
                } catch (Throwable t) {
                    read.completeExceptionally(t);
                }
            });
            awaitParked(reader);
            p.accepted().close();
            assertThatThrownBy(() -> read.get(GENEROUS_SECONDS, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(SocketException.class).hasMessageContaining("closed");
            // the peer sees the close
            assertThat(p.client().getInputStream().read()).isEqualTo(-1);
        }
    }

    @Test
    void closeWhileAWriterWaitsForRoomGivesItAnException() throws Exception {
        try (Pair p = connect()) {
            CompletableFuture<Void> write = new CompletableFuture<>();
            Thread writer = Thread.ofVirtual().start(() -> {
                try {
                    byte[] chunk = new byte[1 << 16];
                    while (true) { // the client never reads: the send buffer fills and the writer parks
                        p.accepted().getOutputStream().write(chunk);
                    }
                } catch (Throwable t) {
                    write.completeExceptionally(t);
                }
            });
            awaitParked(writer);
            p.accepted().close();
            assertThatThrownBy(() -> write.get(GENEROUS_SECONDS, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(SocketException.class);
        }
    }

    @Test
    void aClosedSocketNeverTouchesTheFdItHadEvenOnceTheKernelReusesIt() throws Exception {
        Pair first = connect();
        first.accepted().close();
        try (Pair second = connect()) { // likely given the same fd number
            assertThatThrownBy(() -> first.accepted().getOutputStream()).isInstanceOf(SocketException.class);
            assertThatThrownBy(() -> first.accepted().shutdownInput()).isInstanceOf(SocketException.class);
            second.client().getOutputStream().write(1);
            assertThat((int) onVirtualThread(() -> second.accepted().getInputStream().read())).isEqualTo(1);
        } finally {
            first.client().close();
        }
    }

    @Test
    void halfCloseFromThePeerReadsAsTheEndAndWritesGoOn() throws Exception {
        try (Pair p = connect()) {
            p.client().getOutputStream().write("last".getBytes(StandardCharsets.US_ASCII));
            p.client().shutdownOutput(); // FIN: RDHUP on our side
            InputStream in = p.accepted().getInputStream();
            byte[] all = onVirtualThread(in::readAllBytes);
            assertThat(all).asString().isEqualTo("last");
            p.accepted().getOutputStream().write("reply".getBytes(StandardCharsets.US_ASCII));
            p.accepted().shutdownOutput();
            assertThat(p.client().getInputStream().readAllBytes()).asString().isEqualTo("reply");
        }
    }

    @Test
    void ourShutdownOutputSendsFinAndReadsGoOn() throws Exception {
        try (Pair p = connect()) {
            p.accepted().shutdownOutput();
            assertThat(p.client().getInputStream().read()).isEqualTo(-1);
            assertThatThrownBy(() -> p.accepted().getOutputStream().write(1)).isInstanceOf(SocketException.class);
            p.client().getOutputStream().write(42);
            assertThat((int) onVirtualThread(() -> p.accepted().getInputStream().read())).isEqualTo(42);
        }
    }

    @Test
    void aResetFromThePeerIsAnExceptionOnTheNextRead() throws Exception {
        try (Pair p = connect()) {
            p.client().setSoLinger(true, 0);
            p.client().close(); // RST
            assertThatThrownBy(() -> onVirtualThread(() -> {
                InputStream in = p.accepted().getInputStream();
                while (in.read() >= 0) {
                    // nothing was sent
                }
                return null;
            })).isInstanceOf(SocketException.class).hasMessageContaining("reset");
        }
    }

    @Test
    void closingTheListenerEndsAParkedAccept() throws Exception {
        CompletableFuture<Socket> accept = new CompletableFuture<>();
        Thread acceptor = Thread.ofVirtual().start(() -> {
            try {
                accept.complete(server.accept());
            } catch (Throwable t) {
                accept.completeExceptionally(t);
            }
        });
        awaitParked(acceptor);
        server.close();
        assertThatThrownBy(() -> accept.get(GENEROUS_SECONDS, TimeUnit.SECONDS))
                .hasCauseInstanceOf(SocketException.class);
        assertThat(server.isClosed()).isTrue();
    }
}
