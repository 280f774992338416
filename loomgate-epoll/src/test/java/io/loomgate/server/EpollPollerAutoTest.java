package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Issue 40, {@code loomgate.epoll.block-millis=auto} on real sockets: the busy loop runs its trials (blocking against
 * handing over, {@link BlockTrial}) on the live load and keeps blocking where blocking keeps up. The load is an open
 * rate (a JDK peer writes a few bytes to each of eight connections every 200 µs whatever the gateway does), so both
 * modes see the same events and the cheaper one, blocking, must be kept in some trial; every byte must arrive, in
 * order, whichever mode the trials choose. One carrier, as a gateway pinned to one core: a JVM of its own. The
 * decision's two directions (hand over when blocking falls behind, block again when it keeps up) are
 * {@link BlockTrialTest}'s, on a load the test controls.
 */
// Alone (this module runs some classes side by side, loomgate-epoll/pom.xml): its child JVM's blocking trial measures a
// ratio on the live load: a neighbour's CPU would be in it.
@Isolated
class EpollPollerAutoTest {
    private static final long GENEROUS_SECONDS = 120;
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @Test
    void trialsRunOnTheLiveLoadAndKeepBlockingWhereItKeepsUp() throws Exception {
        String out = OneCarrierJvm.run(PacedLoadProbe.class, "auto", GENEROUS_SECONDS);
        assertThat(out).contains("every byte arrived in order").contains("blocking kept");
    }

    /** The child JVM: prints what it saw; exits 0 when every byte arrived and some trial kept blocking. */
    static final class PacedLoadProbe {
        private static final long RUN_NANOS = TimeUnit.SECONDS.toNanos(6);
        private static final long PACE_NANOS = TimeUnit.MICROSECONDS.toNanos(200);
        /** Enough events per trial ({@link BlockTrial#MIN_EVENTS}) even where a 200 µs park takes a millisecond. */
        private static final int CONNECTIONS = 8;

        public static void main(String[] args) throws Exception {
            EpollPoller poller = EpollPoller.shared();
            try (ServerSocket server = new ServerSocket(0, 50, LOOPBACK)) {
                InetSocketAddress address = new InetSocketAddress(LOOPBACK, server.getLocalPort());
                EpollSocket[] sockets = new EpollSocket[CONNECTIONS];
                Socket[] peers = new Socket[CONNECTIONS];
                long[] received = new long[CONNECTIONS];
                boolean[] inOrder = new boolean[CONNECTIONS];
                Thread[] readers = new Thread[CONNECTIONS];
                for (int c = 0; c < CONNECTIONS; c++) {
                    EpollSocket s = OnVirtualThread.call(() -> EpollSocket.connect(poller, address, 10_000), 30);
                    sockets[c] = s;
                    peers[c] = server.accept();
                    s.setSoTimeout(30_000);
                    inOrder[c] = true;
                    int me = c;
                    // A reader per connection: a virtual thread on the epoll socket, checking that byte i is (byte) i.
                    readers[c] = Thread.ofVirtual().start(() -> {
                        byte[] b = new byte[4096];
                        try (InputStream in = s.getInputStream()) {
                            int n;
                            while ((n = in.read(b)) > 0) {
                                for (int i = 0; i < n; i++) {
                                    inOrder[me] &= b[i] == (byte) received[me]++;
                                }
                            }
                        } catch (java.io.IOException e) {
                            System.out.println("reader " + me + ": " + e);
                        }
                    });
                }
                // The peer: an open rate from a platform thread, 8 bytes to each connection each 200 µs, for 6 s.
                long sent = 0;
                byte[] chunk = new byte[8];
                long end = System.nanoTime() + RUN_NANOS;
                while (System.nanoTime() < end) {
                    for (int i = 0; i < chunk.length; i++) {
                        chunk[i] = (byte) sent++;
                    }
                    for (Socket peer : peers) {
                        peer.getOutputStream().write(chunk);
                    }
                    LockSupport.parkNanos(PACE_NANOS);
                }
                long receivedAll = 0;
                boolean allInOrder = true;
                boolean allEnded = true;
                for (int c = 0; c < CONNECTIONS; c++) {
                    peers[c].shutdownOutput();
                    readers[c].join(TimeUnit.SECONDS.toMillis(30));
                    allEnded &= !readers[c].isAlive() && received[c] == sent;
                    receivedAll += received[c];
                    allInOrder &= inOrder[c];
                    peers[c].close();
                    sockets[c].close();
                }
                BlockTrial trial = poller.trial();
                System.out.println("sent " + sent + " to each of " + CONNECTIONS + ", received " + receivedAll
                        + ", in order " + allInOrder + ", blocks on carrier " + poller.blocksOnCarrier() + ", trials "
                        + (trial == null ? "none" : trial.trials() + ", blocking kept in " + trial.blockingKept()
                        + ", last ratio " + trial.lastRatio()));
                boolean delivered = allEnded && allInOrder;
                if (delivered) {
                    System.out.println("every byte arrived in order");
                }
                if (trial != null && trial.blockingKept() > 0) {
                    System.out.println("blocking kept");
                }
                System.exit(delivered && trial != null && trial.blockingKept() > 0 ? 0 : 1);
            }
        }
    }
}
