package io.loomgate.threads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.testkit.ManualClock;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The direct reads and writes of a plain socket's channel (bulk bodies through direct buffers) keep the deadlines of
 * the socket's streams: a channel read blocked past its read timeout or phase is cut and reported as a timeout, a
 * channel write the peer stopped taking is cut by the write deadline, and a socket without a channel offers none.
 */
class ChannelDeadlinesTest {
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final ManualClock clock = new ManualClock();
    private final Watchdog watchdog = Watchdog.driven(clock);
    private ServerSocket server;
    private Socket ours;
    private Socket peer;

    @BeforeEach
    void connect() throws IOException {
        server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        ours = SocketChannel.open(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()))
                .socket();
        peer = server.accept();
    }

    @AfterEach
    void close() throws IOException {
        ours.close();
        peer.close();
        server.close();
    }

    private WatchedInputStream watchedInput() throws IOException {
        return new WatchedInputStream(ours.getInputStream(), ours.getChannel(), ours::shutdownInput, watchdog);
    }

    private static void await(BooleanSupplier condition) {
        long end = System.nanoTime() + WAIT_NANOS;
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - end).as("condition not reached in time").isNegative();
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    private static Deadline onlyDeadline(Watchdog w) {
        assertThat(w.deadlines()).hasSize(1);
        return w.deadlines().iterator().next();
    }

    @Test
    void aBlockedChannelReadIsCutWhenItsReadTimeoutPasses() throws Exception {
        WatchedInputStream in = watchedInput();
        assertThat(in.directReader()).isNotNull();
        in.setReadTimeout(Duration.ofSeconds(60));
        ByteBuffer direct = ByteBuffer.allocateDirect(1024);
        CompletableFuture<Integer> read = CompletableFuture.supplyAsync(() -> readInto(in, direct));
        Deadline d = onlyDeadline(watchdog);
        await(d::armed);
        clock.advance(Duration.ofSeconds(59));
        assertThat(watchdog.check()).isZero();
        assertThat(read).isNotDone();
        clock.advance(Duration.ofSeconds(1));
        assertThat(watchdog.check()).isEqualTo(1);
        assertThatThrownBy(read::join).hasCauseInstanceOf(SocketTimeoutException.class)
                .cause().hasMessage("read timed out");
        // The cut is final for both kinds of read.
        assertThatThrownBy(() -> in.read(direct)).isInstanceOf(SocketTimeoutException.class);
        assertThatThrownBy(() -> in.read(new byte[1], 0, 1)).isInstanceOf(SocketTimeoutException.class);
    }

    @Test
    void aChannelReadInAPhaseIsBoundByThePhase() throws Exception {
        WatchedInputStream in = watchedInput();
        in.setPhaseTimeout(Duration.ofSeconds(10).toNanos(), "request body");
        ByteBuffer direct = ByteBuffer.allocateDirect(1024);
        CompletableFuture<Integer> read = CompletableFuture.supplyAsync(() -> readInto(in, direct));
        await(onlyDeadline(watchdog)::armed);
        clock.advance(Duration.ofSeconds(10));
        assertThat(watchdog.check()).isEqualTo(1);
        assertThatThrownBy(read::join).cause().isInstanceOf(SocketTimeoutException.class)
                .hasMessage("request body timed out");
    }

    @Test
    void channelReadsThatReturnInTimeDeliverTheBytesAndAreNeverCut() throws Exception {
        WatchedInputStream in = watchedInput();
        in.setReadTimeout(Duration.ofSeconds(1));
        peer.getOutputStream().write("abc".getBytes());
        ByteBuffer direct = ByteBuffer.allocateDirect(16);
        int n = 0;
        while (n < 3) {
            n += in.read(direct);
        }
        clock.advance(Duration.ofHours(1));
        assertThat(watchdog.check()).isZero();
        direct.flip();
        byte[] got = new byte[3];
        direct.get(got);
        assertThat(new String(got)).isEqualTo("abc");
        peer.shutdownOutput();
        assertThat(in.read(direct.clear())).as("end of stream is just end of stream").isEqualTo(-1);
    }

    @Test
    void aChannelWriteThePeerStoppedTakingIsCutByTheWriteDeadline() throws Exception {
        Deadline d = watchdog.deadline(() -> {
            try {
                ours.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        WatchedOutputStream out = new WatchedOutputStream(ours.getOutputStream(), ours.getChannel(), d,
                Duration.ofSeconds(60).toNanos());
        assertThat(out.directWriter()).isNotNull();
        ByteBuffer chunk = ByteBuffer.allocateDirect(256 * 1024);
        CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> {
            try {
                while (true) {
                    out.write(chunk.clear());
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        await(() -> {
            clock.advance(Duration.ofSeconds(61));
            return watchdog.check() > 0;
        });
        assertThatThrownBy(writing::join).hasCauseInstanceOf(UncheckedIOException.class);
        assertThat(ours.isClosed()).isTrue();
    }

    @Test
    void aChannelWriteSendsEveryByteInOrder() throws Exception {
        Deadline d = watchdog.deadline(() -> {
            throw new AssertionError("must not expire");
        });
        WatchedOutputStream out = new WatchedOutputStream(ours.getOutputStream(), ours.getChannel(), d,
                Duration.ofSeconds(60).toNanos());
        byte[] bytes = new byte[3 * 1024 * 1024];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (i * 7 + (i >>> 10));
        }
        CompletableFuture<byte[]> received = CompletableFuture.supplyAsync(() -> {
            try {
                return peer.getInputStream().readNBytes(bytes.length);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        ByteBuffer direct = ByteBuffer.allocateDirect(bytes.length);
        direct.put(bytes).flip();
        assertThat(out.write(direct)).isEqualTo(bytes.length);
        assertThat(direct.hasRemaining()).isFalse();
        assertThat(received.get(30, TimeUnit.SECONDS)).isEqualTo(bytes);
        assertThat(d.armed()).as("disarmed after the write").isFalse();
    }

    @Test
    void aSocketWithoutAChannelOffersNoDirectReadsOrWrites() throws IOException {
        try (Socket plain = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
             Socket other = server.accept()) {
            InputStream stream = plain.getInputStream();
            WatchedInputStream in = new WatchedInputStream(stream, plain.getChannel(), plain::shutdownInput,
                    watchdog);
            WatchedOutputStream out = new WatchedOutputStream(plain.getOutputStream(), plain.getChannel(),
                    watchdog.deadline(() -> { }), 0);
            assertThat(in.directReader()).isNull();
            assertThat(out.directWriter()).isNull();
            assertThat(other.isConnected()).isTrue();
        }
    }

    private static int readInto(WatchedInputStream in, ByteBuffer dst) {
        try {
            return in.read(dst);
        } catch (IOException e) {
            throw new CompletionException(e);
        }
    }
}
