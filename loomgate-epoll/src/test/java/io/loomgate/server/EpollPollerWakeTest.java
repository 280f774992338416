package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Issue 40, the poller's wake-ups, with {@code loomgate.epoll.block-millis} set (opt-in, off by default): between two
 * events a few microseconds or milliseconds apart, the busy loop sleeps
 * in {@code epoll_wait} on its own carrier (nothing else queued) instead of handing the wait to the idle loop's
 * platform thread, a turn that costs a futex each way and two thread switches (bench/syscalls counted 1.2-1.5
 * futex calls per W2 request). And the bound that makes blocking a carrier sound: with one carrier (a proxy pinned to
 * one core), a virtual thread made runnable from outside while the poller blocks, or a timed park ending, runs within
 * the poller's bound, never waits for the next event. Real loopback sockets, a JDK socket as the peer.
 */
// Alone (this module runs some classes side by side, loomgate-epoll/pom.xml): its child JVM checks a one-carrier wake-
// up against a bound.
@Isolated
class EpollPollerWakeTest {
    private static final long GENEROUS_SECONDS = 30;
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final int ROUNDS = 200;
    /**
     * A poller of this test's own whose bound (2 s) no pause of a loopback ping-pong reaches, even on a loaded
     * machine; one for the class, as the gateway has one for the process (its threads are daemons; it holds one fd).
     */
    private static EpollPoller poller;

    @BeforeAll
    static void startPoller() {
        poller = new EpollPoller(EpollPoller.SPINS, 2_000);
    }

    @AfterAll
    static void forgetPoller() {
        poller = null;
    }

    @Test
    void aPingPongWithShortPausesKeepsThePollerOnItsCarrier() throws Exception {
        try (ServerSocket peer = new ServerSocket(0, 50, LOOPBACK)) {
            Thread echo = Thread.ofPlatform().daemon().start(() -> echoOne(peer));
            int handoffs = OnVirtualThread.call(() -> {
                try (EpollSocket s = EpollSocket.connect(poller, new InetSocketAddress(LOOPBACK, peer.getLocalPort()),
                        (int) TimeUnit.SECONDS.toMillis(GENEROUS_SECONDS))) {
                    s.setSoTimeout((int) TimeUnit.SECONDS.toMillis(GENEROUS_SECONDS));
                    pingPong(s, 20); // the busy loop has started and found its scheduler
                    int before = poller.handoffs();
                    pingPong(s, ROUNDS);
                    return poller.handoffs() - before;
                }
            }, GENEROUS_SECONDS);
            echo.join(TimeUnit.SECONDS.toMillis(GENEROUS_SECONDS));
            // Handing over on every pause (the poller before: 4 empty polls, then the idle loop) gives about one per
            // round; a pause longer than the bound (a stalled machine) gives one.
            assertThat(handoffs).as("hand-overs to the idle loop in %d round trips", ROUNDS)
                    .isLessThanOrEqualTo(ROUNDS / 10);
            assertThat(poller.blocksOnCarrier()).as("the busy loop found the virtual threads' scheduler").isTrue();
        }
    }

    /**
     * One carrier (parallelism 1), the poller blocking on it with a bound of 200 ms: virtual threads started from a
     * platform thread, and a virtual thread's timed park, still run, each within that bound (with a generous margin
     * for a loaded machine); without the bound the first would wait for an event that never comes. A JVM of its own,
     * because the scheduler's parallelism is fixed when the JVM starts.
     */
    @Test
    void withOneCarrierAThreadMadeRunnableFromOutsideRunsWithinThePollersBound() throws Exception {
        String out = OneCarrierJvm.run(OneCarrierProbe.class, 200, GENEROUS_SECONDS * 2);
        assertThat(out).contains("blocks on carrier: true").contains("every thread ran");
    }

    /** The child JVM of the one-carrier test: prints what it saw, exits 0 when every thread ran within the bound. */
    static final class OneCarrierProbe {
        private static final long BOUND_NANOS = TimeUnit.SECONDS.toNanos(10); // 200 ms, and a loaded machine's margin

        public static void main(String[] args) throws Exception {
            EpollPoller poller = EpollPoller.shared();
            long deadline = System.nanoTime() + BOUND_NANOS;
            while (poller.blocksOnCarrier() == null && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            System.out.println("blocks on carrier: " + poller.blocksOnCarrier());
            long worst = 0;
            try (ServerSocket server = new ServerSocket(0, 50, LOOPBACK)) {
                Thread echo = Thread.ofPlatform().daemon().start(() -> echoOne(server));
                try (EpollSocket s = EpollSocket.connect(poller, new InetSocketAddress(LOOPBACK, server.getLocalPort()),
                        10_000)) {
                    s.setSoTimeout(10_000);
                    for (int i = 0; i < 10; i++) {
                        // An event, so the busy loop is on the carrier and, nothing queued, blocks for its bound.
                        OnVirtualThread.call(() -> {
                            pingPong(s, 1);
                            return null;
                        }, 10);
                        worst = Math.max(worst, startedFromOutside());
                        worst = Math.max(worst, timedParkOverrun());
                    }
                }
                echo.join(10_000);
            }
            System.out.println("worst wait for the carrier: " + TimeUnit.NANOSECONDS.toMillis(worst) + " ms");
            if (worst > BOUND_NANOS) {
                System.exit(1);
            }
            System.out.println("every thread ran");
            System.exit(0);
        }

        /** How long a virtual thread started by this platform thread waited to run. */
        private static long startedFromOutside() throws InterruptedException {
            long start = System.nanoTime();
            long[] ran = new long[1];
            Thread t = Thread.ofVirtual().start(() -> ran[0] = System.nanoTime());
            if (!t.join(java.time.Duration.ofNanos(BOUND_NANOS * 2))) {
                return Long.MAX_VALUE;
            }
            return ran[0] - start;
        }

        /** How much later than asked a virtual thread's 5 ms timed park ended. */
        private static long timedParkOverrun() throws InterruptedException {
            long[] overrun = new long[1];
            Thread t = Thread.ofVirtual().start(() -> {
                long start = System.nanoTime();
                java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
                overrun[0] = System.nanoTime() - start - TimeUnit.MILLISECONDS.toNanos(5);
            });
            if (!t.join(java.time.Duration.ofNanos(BOUND_NANOS * 2))) {
                return Long.MAX_VALUE;
            }
            return overrun[0];
        }
    }

    /** Echoes one connection's bytes until it closes (a platform thread: the peer is no part of the poller). */
    private static void echoOne(ServerSocket server) {
        try (Socket s = server.accept()) {
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            byte[] b = new byte[64];
            int n;
            while ((n = in.read(b)) > 0) {
                out.write(b, 0, n);
            }
        } catch (IOException e) {
            // the test fails on what its side reads
        }
    }

    /** Round trips of four bytes, each read in full before the next is sent. */
    private static void pingPong(EpollSocket s, int rounds) throws IOException {
        byte[] ping = "ping".getBytes(StandardCharsets.US_ASCII);
        byte[] back = new byte[4];
        for (int i = 0; i < rounds; i++) {
            s.getOutputStream().write(ping);
            int got = 0;
            while (got < back.length) {
                int n = s.getInputStream().read(back, got, back.length - got);
                if (n < 0) {
                    throw new IOException("the echo closed after " + i + " rounds");
                }
                got += n;
            }
        }
    }
}
