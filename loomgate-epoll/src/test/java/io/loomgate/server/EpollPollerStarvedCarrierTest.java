package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 40, EpollFuzzTest's 30 s stalls on a loaded machine: events must be dispatched even while the busy loop
 * cannot get a carrier. The busy loop is a virtual thread; when every carrier is taken (a CPU-starved JVM, or a
 * ForkJoinPool worker that keeps draining one submission queue another thread keeps filling) it waits in a queue,
 * after a yield or after the idle loop woke it, and nothing else polled the epoll set meanwhile: every reader's
 * wake-up waited for the poller's own turn (seconds in the fuzz runs, sampled). Here one carrier
 * (parallelism 1) is held by a virtual thread that spins and never yields, then a peer writes to two epoll sockets
 * one after the other: both sockets' readiness must be seen (their {@code whenReadable} callbacks run on the thread
 * that dispatched) within a generous bound while the carrier is still held. Each poller mode: handing over
 * (block-millis 0), blocking briefly (1), blocking long enough that the busy loop is still active (not handed over)
 * when the carrier is taken (1000), and blocking while trials say it pays (auto). A JVM of its own per run: the
 * scheduler's parallelism is fixed at start.
 */
// Alone (this module runs some classes side by side, loomgate-epoll/pom.xml): its child JVM holds its only carrier and
// checks a bound on the events' dispatch.
@Isolated
class EpollPollerStarvedCarrierTest {
    private static final long GENEROUS_SECONDS = 120;
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @ParameterizedTest
    @ValueSource(strings = {"0", "1", "1000", "auto"})
    void eventsAreDispatchedWhileTheOnlyCarrierIsHeld(String blockMillis) throws Exception {
        String out = OneCarrierJvm.run(HeldCarrierProbe.class, blockMillis, GENEROUS_SECONDS);
        assertThat(out).contains("both sockets' readiness seen while the carrier was held");
    }

    /** The child JVM: prints what it saw; exits 0 when both readinesses were dispatched while the carrier was held. */
    static final class HeldCarrierProbe {
        /** Far below the fuzz test's 30 s stalls, far above the poller's watch on a loaded machine. */
        private static final long BOUND_SECONDS = 10;
        private static volatile boolean hogging;
        private static volatile boolean release;

        public static void main(String[] args) throws Exception {
            EpollPoller poller = EpollPoller.shared();
            try (ServerSocket server = new ServerSocket(0, 50, LOOPBACK)) {
                InetSocketAddress address = new InetSocketAddress(LOOPBACK, server.getLocalPort());
                EpollSocket a = OnVirtualThread.call(() -> EpollSocket.connect(poller, address, 10_000), 30);
                Socket peerA = server.accept();
                EpollSocket b = OnVirtualThread.call(() -> EpollSocket.connect(poller, address, 10_000), 30);
                Socket peerB = server.accept();
                CountDownLatch aSeen = new CountDownLatch(1);
                CountDownLatch bSeen = new CountDownLatch(1);
                a.whenReadable(aSeen::countDown);
                b.whenReadable(bSeen::countDown);
                // The one carrier, held: a virtual thread that never parks or yields until told.
                Thread hog = Thread.ofVirtual().start(() -> {
                    hogging = true;
                    while (!release) {
                        Thread.onSpinWait();
                    }
                });
                await(() -> hogging, "the hog got the carrier");
                peerA.getOutputStream().write(1);
                boolean first = aSeen.await(BOUND_SECONDS, TimeUnit.SECONDS);
                peerB.getOutputStream().write(1);
                boolean second = bSeen.await(BOUND_SECONDS, TimeUnit.SECONDS);
                boolean held = hog.isAlive();
                System.out.println("first seen " + first + ", second seen " + second + ", carrier still held " + held
                        + ", blocks on carrier " + poller.blocksOnCarrier());
                release = true;
                hog.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
                peerA.close();
                peerB.close();
                if (first && second && held) {
                    System.out.println("both sockets' readiness seen while the carrier was held");
                    System.exit(0);
                }
                System.exit(1);
            }
        }

        private static void await(BooleanSupplier condition, String what) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
            while (!condition.getAsBoolean()) {
                if (System.nanoTime() > deadline) {
                    System.out.println("not within the bound: " + what);
                    System.exit(2);
                }
                Thread.onSpinWait();
            }
        }
    }
}
