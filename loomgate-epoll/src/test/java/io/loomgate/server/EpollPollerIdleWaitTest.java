package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 40, session 46: the idle loop's wait on a second epoll set that holds only the poller's own epoll fd. After
 * each hand-over (the busy loop parked, the idle loop owning the waiting) the next event must still wake the reader
 * (a lost wake-up hangs the round trip until the test's bound), and with the second set the idle loop dispatches no
 * socket event itself: it resumes the busy loop, which polls and unparks the reader on its carrier. The wait on the
 * sockets' own set (main's hand-over before) dispatched every such event from the platform thread. Real loopback
 * sockets, a JDK socket as the peer, a poller of the test's own per case.
 */
class EpollPollerIdleWaitTest {
    private static final long GENEROUS_SECONDS = 60;
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final int ROUNDS = 40;
    /**
     * The echo's pause before each answer: far longer than the busy loop's few empty polls, so it hands over in every
     * pause and the answer's event reaches a poller whose idle loop owns the waiting. (Not a wait for readiness: the
     * pause is the situation under test.)
     */
    private static final long PAUSE_MILLIS = 5;

    @Test
    void withTheSecondSetEveryEventAfterAHandOverWakesTheReaderAndTheIdleLoopDispatchesNone() throws Exception {
        EpollPoller poller = new EpollPoller(EpollPoller.SPINS, 0, false, true);
        assertThat(poller.nestedIdle()).isTrue();
        Outcome o = pausedPingPong(poller);
        assertThat(o.handoffs()).as("hand-overs in %d paused round trips", ROUNDS).isGreaterThanOrEqualTo(ROUNDS / 2);
        // A stand-in (the busy loop waited over 25 ms for a carrier on a loaded machine) polls the first set itself
        assumeThat(o.standIns()).as("stand-ins for a starved busy loop").isZero();
        assertThat(o.idleEvents()).as("events the idle loop dispatched itself").isZero();
    }

    @Test
    void withTheSocketsSetEveryEventAfterAHandOverWakesTheReader() throws Exception {
        EpollPoller poller = new EpollPoller(EpollPoller.SPINS, 0, false, false);
        assertThat(poller.nestedIdle()).isFalse();
        Outcome o = pausedPingPong(poller);
        assertThat(o.handoffs()).as("hand-overs in %d paused round trips", ROUNDS).isGreaterThanOrEqualTo(ROUNDS / 2);
        assertThat(o.idleEvents()).as("events the idle loop dispatched after its wake-ups").isPositive();
    }

    private record Outcome(int handoffs, int standIns, long idleEvents) {
    }

    /** ROUNDS round trips over an epoll socket of that poller, the echo pausing before each answer. */
    private static Outcome pausedPingPong(EpollPoller poller) throws Exception {
        try (ServerSocket peer = new ServerSocket(0, 50, LOOPBACK)) {
            Thread echo = Thread.ofPlatform().daemon().start(() -> echoPausing(peer));
            Outcome o = OnVirtualThread.call(() -> {
                try (EpollSocket s = EpollSocket.connect(poller, new InetSocketAddress(LOOPBACK, peer.getLocalPort()),
                        (int) TimeUnit.SECONDS.toMillis(GENEROUS_SECONDS))) {
                    s.setSoTimeout((int) TimeUnit.SECONDS.toMillis(GENEROUS_SECONDS));
                    pingPong(s, 2); // the loops have started
                    int handoffs = poller.handoffs();
                    int standIns = poller.standIns();
                    long idleEvents = poller.idleEvents();
                    pingPong(s, ROUNDS);
                    return new Outcome(poller.handoffs() - handoffs, poller.standIns() - standIns,
                            poller.idleEvents() - idleEvents);
                }
            }, GENEROUS_SECONDS);
            echo.join(TimeUnit.SECONDS.toMillis(GENEROUS_SECONDS));
            return o;
        }
    }

    /** Echoes one connection's bytes until it closes, each answer after a pause (a platform thread). */
    private static void echoPausing(ServerSocket server) {
        try (Socket s = server.accept()) {
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            byte[] b = new byte[64];
            int n;
            while ((n = in.read(b)) > 0) {
                Thread.sleep(PAUSE_MILLIS);
                out.write(b, 0, n);
            }
        } catch (IOException | InterruptedException e) {
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
