package io.loomgate.threads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.testkit.ManualClock;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Read and write deadlines on real sockets, with a watchdog whose clock the test drives: a blocked read or write is
 * cut exactly when the driven clock passes its deadline, and never before.
 */
class SocketDeadlinesTest {
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final ManualClock clock = new ManualClock();
    private final Watchdog watchdog = Watchdog.driven(clock);
    private ServerSocket server;
    private Socket ours;
    private Socket peer;

    @BeforeEach
    void connect() throws IOException {
        server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        ours = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
        peer = server.accept();
    }

    @AfterEach
    void close() throws IOException {
        ours.close();
        peer.close();
        server.close();
    }

    private WatchedInputStream watchedInput() throws IOException {
        return new WatchedInputStream(ours.getInputStream(), ours::shutdownInput, watchdog);
    }

    /** Polls (no sleeping for a fixed time) until the condition holds; fails after a generous deadline. */
    private static void await(BooleanSupplier condition) {
        long end = System.nanoTime() + WAIT_NANOS;
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - end).as("condition not reached in time").isNegative();
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    private static Deadline onlyDeadline(Watchdog w) {
        // The deadline of a stream is private; a driven watchdog holding exactly one lets a test see it.
        assertThat(w.deadlines()).hasSize(1);
        return w.deadlines().iterator().next();
    }

    @Test
    void aBlockedReadIsCutWhenItsReadTimeoutPasses() throws Exception {
        WatchedInputStream in = watchedInput();
        in.setReadTimeout(Duration.ofSeconds(60));
        CompletableFuture<Integer> read = CompletableFuture.supplyAsync(() -> readOne(in));
        Deadline d = onlyDeadline(watchdog);
        await(d::armed);
        clock.advance(Duration.ofSeconds(59));
        assertThat(watchdog.check()).isZero();
        assertThat(read).isNotDone();
        clock.advance(Duration.ofSeconds(1));
        assertThat(watchdog.check()).isEqualTo(1);
        assertThatThrownBy(read::join).hasCauseInstanceOf(SocketTimeoutException.class)
                .cause().hasMessage("read timed out");
        // A cut is final: the input is shut down, and every later read says why.
        assertThatThrownBy(() -> in.read(new byte[1], 0, 1)).isInstanceOf(SocketTimeoutException.class)
                .hasMessage("read timed out");
    }

    /**
     * An open wait (an HTTP/2 connection's wait for its client's next frame while a stream is answered) has no bound
     * of its own, not even the read timeout set before it, until another thread bounds it; then the watchdog cuts it
     * as a timeout.
     */
    @Test
    void anOpenWaitIsUnboundedUntilAnotherThreadBoundsIt() throws Exception {
        WatchedInputStream in = watchedInput();
        in.setReadTimeout(Duration.ofSeconds(1));
        in.beginOpenWait();
        CompletableFuture<Integer> read = CompletableFuture.supplyAsync(() -> readOne(in));
        clock.advance(Duration.ofHours(1));
        assertThat(watchdog.check()).isZero();
        assertThat(read).isNotDone();
        CompletableFuture<Boolean> bounded = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> bounded.complete(in.boundOpenWait(Duration.ofSeconds(10).toNanos())));
        assertThat(bounded.get(30, TimeUnit.SECONDS)).as("bounded from another thread").isTrue();
        assertThat(in.boundOpenWait(1)).as("only once: the first bound stands").isFalse();
        clock.advance(Duration.ofSeconds(9));
        assertThat(watchdog.check()).isZero();
        clock.advance(Duration.ofSeconds(1));
        assertThat(watchdog.check()).isEqualTo(1);
        assertThatThrownBy(read::join).hasCauseInstanceOf(SocketTimeoutException.class)
                .cause().hasMessage("read timed out");
        in.endOpenWait();
        assertThatThrownBy(() -> in.read(new byte[1], 0, 1)).isInstanceOf(SocketTimeoutException.class);
    }

    /**
     * The lost wake-up: a bound set after the wait opened (the reader's look found a stream answered) but before its
     * read began (the last stream ended in between) still bounds the read; nothing the read does at its start may
     * clear it, or the reader would wait with no idle bound at all.
     */
    @Test
    void aBoundSetBetweenTheOpeningAndTheReadStillBoundsTheRead() throws Exception {
        WatchedInputStream in = watchedInput();
        in.beginOpenWait();
        assertThat(in.boundOpenWait(Duration.ofSeconds(10).toNanos())).isTrue();
        CompletableFuture<Integer> read = CompletableFuture.supplyAsync(() -> readOne(in));
        Deadline d = onlyDeadline(watchdog);
        assertThat(d.armed()).isTrue();
        clock.advance(Duration.ofSeconds(10));
        assertThat(watchdog.check()).isEqualTo(1);
        assertThatThrownBy(read::join).hasCauseInstanceOf(SocketTimeoutException.class);
    }

    /**
     * A bound that comes once the wait has ended bounds nothing: not the owner's next read, whatever its own limit
     * (the handler that ends the last stream may look as the reader's wait ends with a frame).
     */
    @Test
    void aBoundAfterTheOpenWaitEndedBoundsNothing() throws Exception {
        WatchedInputStream in = watchedInput();
        in.beginOpenWait();
        peer.getOutputStream().write('x');
        assertThat(in.read()).isEqualTo('x');
        in.endOpenWait();
        assertThat(in.boundOpenWait(1)).isFalse();
        Deadline d = onlyDeadline(watchdog);
        assertThat(d.armed()).isFalse();
        in.setReadTimeout(Duration.ofSeconds(60));
        CompletableFuture<Integer> read = CompletableFuture.supplyAsync(() -> readOne(in));
        await(d::armed);
        clock.advance(Duration.ofSeconds(59));
        assertThat(watchdog.check()).as("its own 60 s, not the late bound's nanosecond").isZero();
        peer.getOutputStream().write('y');
        assertThat(read.get(30, TimeUnit.SECONDS)).isEqualTo((int) 'y');
    }

    /**
     * An open wait that ends softly (SO_TIMEOUT: the HTTP/2 hand-off loop's wait of a connection that may park, while
     * a stream is answered) is no cut: the socket reads on. The bound another thread set before that soft end is not
     * lost with the wait: its end says how much it had left, which the reader's next wait keeps (journal
     * 2026-12-02-s60-handoff); no bound says so; a bound the watchdog expired is the cut, and the next read reports it.
     */
    @Test
    void anOpenWaitEndedSoftlyIsNoCutAndTellsWhatItsBoundHadLeft() throws Exception {
        WatchedInputStream in = watchedInput();
        ours.setSoTimeout(20);
        in.beginOpenWait();
        assertThatThrownBy(in::read).isInstanceOf(SocketTimeoutException.class);
        assertThat(in.cut()).as("SO_TIMEOUT's soft end").isFalse();
        assertThat(in.endOpenWait()).as("nobody bounded it").isEqualTo(Deadline.UNBOUNDED);

        in.beginOpenWait();
        assertThat(in.boundOpenWait(Duration.ofSeconds(10).toNanos())).isTrue();
        clock.advance(Duration.ofSeconds(4));
        assertThatThrownBy(in::read).isInstanceOf(SocketTimeoutException.class);
        assertThat(in.cut()).isFalse();
        assertThat(in.endOpenWait()).as("the rest of the bound").isEqualTo(Duration.ofSeconds(6).toNanos());
        peer.getOutputStream().write('x');
        assertThat(in.read()).as("the socket reads on").isEqualTo('x');

        in.beginOpenWait();
        assertThat(in.boundOpenWait(Duration.ofSeconds(10).toNanos())).isTrue();
        clock.advance(Duration.ofSeconds(10));
        assertThat(watchdog.check()).isEqualTo(1);
        assertThatThrownBy(in::read).isInstanceOf(SocketTimeoutException.class).hasMessage("read timed out");
        assertThat(in.cut()).as("the watchdog's cut").isTrue();
        assertThat(in.endOpenWait()).isZero();
        assertThatThrownBy(in::read).isInstanceOf(SocketTimeoutException.class);
    }

    @Test
    void readsThatReturnInTimeAreNeverCut() throws Exception {
        WatchedInputStream in = watchedInput();
        in.setReadTimeout(Duration.ofSeconds(1));
        peer.getOutputStream().write("ab".getBytes());
        assertThat(in.read()).isEqualTo('a');
        clock.advance(Duration.ofHours(1));
        assertThat(watchdog.check()).isZero();
        assertThat(in.read()).isEqualTo('b');
        peer.shutdownOutput();
        assertThat(in.read()).as("end of stream is just end of stream").isEqualTo(-1);
    }

    @Test
    void aPhaseDeadlineBoundsEveryReadUntilCleared() throws Exception {
        WatchedInputStream in = watchedInput();
        in.setReadTimeout(Duration.ofSeconds(60));
        in.setPhaseTimeout(Duration.ofSeconds(10).toNanos(), "request head");
        peer.getOutputStream().write('x');
        assertThat(in.read()).isEqualTo('x');
        clock.advance(Duration.ofSeconds(10));
        // Past the phase's instant, a read fails at once, without blocking or cutting.
        assertThatThrownBy(() -> in.read(new byte[1], 0, 1)).isInstanceOf(SocketTimeoutException.class)
                .hasMessage("request head not complete in time");
        in.clearPhaseDeadline();
        peer.getOutputStream().write('y');
        assertThat(in.read()).as("cleared: the per-read timeout applies again").isEqualTo('y');
    }

    @Test
    void aReadBlockedInAPhaseIsCutNamingThePhase() throws Exception {
        WatchedInputStream in = watchedInput();
        in.setPhaseTimeout(Duration.ofSeconds(10).toNanos(), "request head");
        CompletableFuture<Integer> read = CompletableFuture.supplyAsync(() -> readOne(in));
        await(onlyDeadline(watchdog)::armed);
        clock.advance(Duration.ofSeconds(10));
        assertThat(watchdog.check()).isEqualTo(1);
        assertThatThrownBy(read::join).cause().isInstanceOf(SocketTimeoutException.class)
                .hasMessage("request head timed out");
    }

    @Test
    void withoutATimeoutAReadIsNeverArmed() throws Exception {
        WatchedInputStream in = watchedInput();
        CompletableFuture<Integer> read = CompletableFuture.supplyAsync(() -> readOne(in));
        clock.advance(Duration.ofDays(1));
        assertThat(watchdog.check()).isZero();
        peer.getOutputStream().write('z');
        assertThat(read.get(30, TimeUnit.SECONDS)).isEqualTo('z');
    }

    @Test
    void closingTheStreamStopsTheWatching() throws IOException {
        WatchedInputStream in = watchedInput();
        assertThat(watchdog.watched()).isEqualTo(1);
        in.close();
        in.close();
        assertThat(watchdog.watched()).isZero();
    }

    @Test
    void aWriteTheReaderStoppedTakingIsCutByItsDeadline() throws Exception {
        Deadline d = watchdog.deadline(() -> {
            try {
                ours.close();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        OutputStream out = new WatchedOutputStream(ours.getOutputStream(), d, Duration.ofSeconds(60).toNanos());
        // The peer never reads: the socket buffers fill and a write blocks.
        CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> {
            byte[] chunk = new byte[64 * 1024];
            try {
                while (true) {
                    out.write(chunk, 0, chunk.length);
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        // A write in progress is armed; once one has blocked, the driven clock passing its deadline cuts it.
        await(() -> {
            clock.advance(Duration.ofSeconds(61));
            return watchdog.check() > 0;
        });
        assertThatThrownBy(writing::join).hasCauseInstanceOf(java.io.UncheckedIOException.class);
        assertThat(ours.isClosed()).isTrue();
    }

    @Test
    void writesWithoutALimitAreNeverArmed() throws IOException {
        Deadline d = watchdog.deadline(() -> {
            throw new AssertionError("must not expire");
        });
        OutputStream out = new WatchedOutputStream(ours.getOutputStream(), d, 0);
        out.write('a');
        out.write(new byte[] {'b', 'c'}, 0, 2);
        out.flush();
        InputStream in = peer.getInputStream();
        assertThat(in.readNBytes(3)).containsExactly('a', 'b', 'c');
        assertThat(d.armed()).isFalse();
    }

    private static int readOne(InputStream in) {
        try {
            return in.read();
        } catch (IOException e) {
            throw new CompletionException(e);
        }
    }
}
