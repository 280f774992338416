package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The epoll socket's edges, each on real loopback sockets with a JDK socket as the peer: the read deadline
 * (SO_TIMEOUT), the watchdog's cut (shutdownInput), close racing a parked reader and a parked writer, half-close both
 * ways, a reset, the fd never used after close, and when an idle connection's readiness callback runs. Bounds are
 * generous (a loaded machine): the point is an answer, never a hang.
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
        return OnVirtualThread.call(body, GENEROUS_SECONDS);
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

    /**
     * available() counts what the kernel holds, as the JDK's socket does (FIONREAD). The gateway's body relay asks it
     * to decide whether to take more before relaying: answering 0 always made an HTTP/1.1 upload on epoll relay one
     * byte per read once it looked slow (the traffic matrix's 8 MiB and slow-drip rows timed out).
     */
    @Test
    void availableCountsTheBytesTheKernelHoldsAndZeroOnceInputIsShut() throws Exception {
        try (Pair p = connect()) {
            InputStream in = p.accepted().getInputStream();
            assertThat(in.available()).isZero();
            p.client().getOutputStream().write(new byte[1000]);
            long deadline = System.nanoTime() + Duration.ofSeconds(GENEROUS_SECONDS).toNanos();
            while (in.available() < 1000) { // loopback delivers at once, but poll rather than trust it
                assertThat(System.nanoTime()).as("1000 bytes arrive").isLessThan(deadline);
                Thread.onSpinWait();
            }
            assertThat(in.available()).isEqualTo(1000);
            assertThat(onVirtualThread(() -> in.read(new byte[100]))).isEqualTo(100);
            assertThat(in.available()).isEqualTo(900);
            p.accepted().shutdownInput();
            assertThat(in.available()).isZero();
            p.accepted().close();
            assertThatThrownBy(in::available).isInstanceOf(SocketException.class);
        }
    }

    /**
     * One socket, two threads (the gateway's shape for an HTTP/1.1 upload echoed back as it arrives): one writes 8 MiB
     * to a peer that reads slowly while the other reads 8 MiB the peer sends, several such sockets at once. Every byte
     * must arrive, in order, in both directions: a readiness edge lost between the reader and the writer hangs one.
     */
    @Test
    void fullDuplexEightMebibytesEachWayWithASlowPeerReaderLosesNoWakeUp() throws Exception {
        int size = 8 << 20;
        int sockets = 6;
        java.util.List<CompletableFuture<Void>> done = new java.util.ArrayList<>();
        java.util.List<Pair> pairs = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < sockets; i++) {
                Pair p = connect();
                pairs.add(p);
                done.add(onThread(true, () -> writePattern(p.accepted().getOutputStream(), size, 1 << 16)));
                done.add(onThread(true, () -> readPattern(p.accepted().getInputStream(), size, 1 << 16, false)));
                done.add(onThread(false, () -> writePattern(p.client().getOutputStream(), size, 1 << 14)));
                done.add(onThread(false, () -> readPattern(p.client().getInputStream(), size, 1 << 12, true)));
            }
            CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        } finally {
            for (Pair p : pairs) {
                p.close();
            }
        }
    }

    private static CompletableFuture<Void> onThread(boolean virtual, ThrowingRunnable body) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        (virtual ? Thread.ofVirtual() : Thread.ofPlatform().daemon()).start(() -> {
            try {
                body.run();
                f.complete(null);
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        return f;
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    private static void writePattern(java.io.OutputStream out, int size, int chunk) throws IOException {
        byte[] b = new byte[chunk];
        for (int sent = 0; sent < size; ) {
            int n = Math.min(chunk, size - sent);
            for (int i = 0; i < n; i++) {
                b[i] = (byte) ((sent + i) * 31 >>> 3);
            }
            out.write(b, 0, n);
            sent += n;
        }
    }

    /** Reads size bytes and checks each; slow: a pause of a millisecond every 256 KiB (a client that drips). */
    private static void readPattern(InputStream in, int size, int chunk, boolean slow) throws Exception {
        byte[] b = new byte[chunk];
        for (int got = 0; got < size; ) {
            int n = in.read(b, 0, Math.min(chunk, size - got));
            assertThat(n).as("bytes read after %d of %d", got, size).isPositive();
            for (int i = 0; i < n; i++) {
                if (b[i] != (byte) ((got + i) * 31 >>> 3)) {
                    throw new AssertionError("byte " + (got + i) + " differs");
                }
            }
            if (slow && (got >>> 18) != ((got + n) >>> 18)) {
                Thread.sleep(1); // pacing the reader, not waiting for readiness
            }
            got += n;
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

    // --- an idle connection's "when readable" callback (EpollFd.whenReadable) runs only when a read would find
    // something: never on a readiness flag or an event whose bytes a reader took already (session 53: such a callback
    // resumed a parked connection with nothing to read, whose thread then waited the hand-off delay without a hand-off
    // permit; EpollIdleConnectionParkingTest's permit case failed about once in 100 runs under load), and every time
    // bytes, the peer's FIN or the socket's close come ---

    /**
     * Sends {@code n} bytes and reads them on a virtual thread, as a connection's thread would: into a larger buffer
     * (each read short: the flag cleared, as after a request's head), or with {@code exact}, each read asking for
     * exactly what is left (the last one full: the flag stays set, "more may be waiting").
     */
    private static void exchange(Pair p, int n, boolean exact) throws Exception {
        OutputStream out = p.client().getOutputStream();
        out.write(new byte[n]);
        out.flush();
        OnVirtualThread.call(() -> {
            byte[] b = new byte[n + 1];
            int got = 0;
            while (got < n) {
                int r = p.accepted().read(b, got, n - got + (exact ? 0 : 1));
                assertThat(r).as("bytes, not the end").isPositive();
                got += r;
            }
            return got;
        }, GENEROUS_SECONDS);
    }

    @Test
    void theEventThatWokeTheReaderDoesNotRunACallbackRegisteredAfterTheReadTookItsBytes() throws Exception {
        try (Pair p = connect()) {
            exchange(p, 31, false); // the request, read by the connection's thread once the event unparked it
            assertThat(p.accepted().registration().mayRead()).as("the flag after a short read").isFalse();
            CountDownLatch resumed = new CountDownLatch(1);
            p.accepted().whenReadable(resumed::countDown); // the connection parks
            assertThat(resumed.getCount()).as("nothing to read as it parks").isEqualTo(1);
            // The poller's dispatch of that same event goes on after the unpark: readable again, then the callback.
            p.accepted().registration().ready(Libc.EPOLLIN | Libc.EPOLLOUT);
            assertThat(resumed.getCount()).as("not resumed: nothing to read").isEqualTo(1);
            p.client().getOutputStream().write('G'); // the next request: its own edge resumes it
            assertThat(resumed.await(GENEROUS_SECONDS, TimeUnit.SECONDS)).as("resumed by the next bytes").isTrue();
        }
    }

    @Test
    void aStaleReadableFlagDoesNotRunTheCallbackAtOnce() throws Exception {
        try (Pair p = connect()) {
            // A read that fills its buffer leaves the flag set ("more may be waiting"), though nothing is.
            exchange(p, 64, true);
            assertThat(p.accepted().registration().mayRead()).as("the flag after a full read").isTrue();
            CountDownLatch resumed = new CountDownLatch(1);
            p.accepted().whenReadable(resumed::countDown);
            assertThat(resumed.getCount()).as("not resumed on the parking thread: nothing to read").isEqualTo(1);
            p.client().getOutputStream().write('G');
            assertThat(resumed.await(GENEROUS_SECONDS, TimeUnit.SECONDS)).as("resumed by the next bytes").isTrue();
        }
    }

    @Test
    void bytesAlreadyWaitingRunItAtOnce() throws Exception {
        try (Pair p = connect()) {
            exchange(p, 31, false);
            p.client().getOutputStream().write('G');
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GENEROUS_SECONDS);
            while (p.accepted().available() == 0) { // in the kernel's buffer, whether or not its edge was dispatched
                assertThat(System.nanoTime() - deadline).as("the byte arrives").isNegative();
                Thread.onSpinWait();
            }
            CountDownLatch resumed = new CountDownLatch(1);
            p.accepted().whenReadable(resumed::countDown);
            assertThat(resumed.await(GENEROUS_SECONDS, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void thePeersFinRunsItAndAClosedSocketRunsItAtOnce() throws Exception {
        try (Pair fin = connect(); Pair closed = connect()) {
            exchange(fin, 31, false);
            CountDownLatch finSeen = new CountDownLatch(1);
            fin.accepted().whenReadable(finSeen::countDown);
            fin.client().shutdownOutput();
            assertThat(finSeen.await(GENEROUS_SECONDS, TimeUnit.SECONDS)).as("the FIN resumes it").isTrue();

            exchange(closed, 31, false);
            closed.accepted().close();
            CountDownLatch closeSeen = new CountDownLatch(1);
            closed.accepted().whenReadable(closeSeen::countDown);
            assertThat(closeSeen.getCount()).as("a closed socket's callback runs at once").isZero();
        }
    }
}
