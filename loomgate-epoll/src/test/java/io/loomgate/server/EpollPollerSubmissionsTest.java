package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Session 53: the rounds in which threads made runnable by a platform thread (a timer, the watchdog, the idle loop)
 * wait in the scheduler's submission queues are bounded apart from the spin count ({@link EpollPoller#STARVED_ROUNDS},
 * before session 53 the same number as {@link EpollPoller#SPINS}), so that a longer spin ({@code
 * -Dloomgate.epoll.spins}, measured at 16 in session 53) does not make them wait longer. With one carrier, a poller
 * that may block on it but never hands over on empty polls, and a reader that keeps the carrier's own queue busy (a
 * peer streams bytes to it), a virtual thread started from a platform thread must run within a generous bound.
 * Before, with a spin count this large, it never ran.
 */
class EpollPollerSubmissionsTest {
    private static final long GENEROUS_SECONDS = 120;

    @Test
    void aThreadStartedByAPlatformThreadRunsWhileThePollerSpins() throws Exception {
        String out = OneCarrierJvm.run(SpinningPollerProbe.class, 1000, GENEROUS_SECONDS);
        assertThat(out).contains("the started thread ran");
    }

    /** The child JVM: exits 0 when the virtual thread a platform thread started ran within the bound. */
    static final class SpinningPollerProbe {
        private static final long BOUND_SECONDS = 10;
        private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
        private static volatile boolean stop;

        public static void main(String[] args) throws Exception {
            // may block on the carrier (1 s) when nothing is queued; never hands over on empty polls
            EpollPoller poller = new EpollPoller(Integer.MAX_VALUE, 1_000);
            try (ServerSocket server = new ServerSocket(0, 50, LOOPBACK)) {
                InetSocketAddress address = new InetSocketAddress(LOOPBACK, server.getLocalPort());
                EpollSocket socket = OnVirtualThread.call(() -> EpollSocket.connect(poller, address, 10_000), 30);
                Socket peer = server.accept();
                CountDownLatch reading = new CountDownLatch(1);
                // a reader on the carrier: each event unparks it onto the carrier's own queue
                Thread reader = Thread.ofVirtual().start(() -> {
                    byte[] buffer = new byte[4096];
                    try {
                        while (!stop) {
                            if (socket.read(buffer, 0, buffer.length) < 0) {
                                return;
                            }
                            reading.countDown();
                        }
                    } catch (java.io.IOException e) {
                        // closed at the end
                    }
                });
                Thread writer = Thread.ofPlatform().daemon().start(() -> {
                    try {
                        while (!stop) {
                            peer.getOutputStream().write(new byte[64]);
                            Thread.onSpinWait();
                        }
                    } catch (java.io.IOException e) {
                        // closed at the end
                    }
                });
                boolean streaming = reading.await(BOUND_SECONDS, TimeUnit.SECONDS);
                int before = poller.handoffs();
                CountDownLatch ran = new CountDownLatch(1);
                Thread.ofVirtual().start(ran::countDown); // submitted from this platform thread
                boolean started = ran.await(BOUND_SECONDS, TimeUnit.SECONDS);
                System.out.println("streaming " + streaming + ", started thread ran " + started + ", hand-overs "
                        + (poller.handoffs() - before));
                stop = true;
                peer.close();
                socket.close();
                writer.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
                reader.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
                if (streaming && started) {
                    System.out.println("the started thread ran");
                    System.exit(0);
                }
                System.exit(1);
            }
        }
    }
}
