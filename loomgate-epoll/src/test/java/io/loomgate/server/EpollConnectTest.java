package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.testkit.BlackHole;
import io.loomgate.testkit.FreePorts;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Connections dialled on epoll ({@link EpollSocket#connect}, what the upstream client uses on {@code server.transport:
 * epoll}), against real loopback peers: bytes both ways, a refused connect, a connect into a black hole that must end
 * at its deadline, and an origin that closes or resets in the middle of a body. Each failure is the type the upstream
 * client tells apart ({@link SocketTimeoutException} for a timeout, {@link ConnectException} for the rest) and leaves
 * no fd behind. Bounds are generous (a loaded machine): the point is an answer, never a hang.
 */
// Alone (this module runs some classes side by side, loomgate-epoll/pom.xml): counts this JVM's open descriptors
// (/proc/self/fd).
@Isolated
class EpollConnectTest {
    private static final long GENEROUS_SECONDS = 20;
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    private static <T> T onVirtualThread(Callable<T> body) throws Exception {
        return OnVirtualThread.call(body, GENEROUS_SECONDS);
    }

    private static EpollSocket dial(InetSocketAddress address, int timeoutMillis) throws Exception {
        return onVirtualThread(() -> EpollSocket.connect(EpollPoller.shared(), address, timeoutMillis));
    }

    @Test
    void aDialledSocketCarriesBytesBothWaysAndKnowsItsAddresses() throws Exception {
        try (ServerSocket origin = new ServerSocket(0, 50, LOOPBACK)) {
            CompletableFuture<Socket> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    return origin.accept();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            try (EpollSocket s = dial(new InetSocketAddress(LOOPBACK, origin.getLocalPort()), 5_000);
                 Socket peer = accepted.get(GENEROUS_SECONDS, TimeUnit.SECONDS)) {
                peer.setSoTimeout((int) TimeUnit.SECONDS.toMillis(GENEROUS_SECONDS));
                s.getOutputStream().write("ping".getBytes(StandardCharsets.US_ASCII));
                assertThat(peer.getInputStream().readNBytes(4)).asString().isEqualTo("ping");
                peer.getOutputStream().write("pong".getBytes(StandardCharsets.US_ASCII));
                byte[] b = new byte[4];
                assertThat((int) onVirtualThread(() -> s.getInputStream().readNBytes(b, 0, 4))).isEqualTo(4);
                assertThat(new String(b, StandardCharsets.US_ASCII)).isEqualTo("pong");
                assertThat(s.getRemoteSocketAddress()).isEqualTo(peer.getLocalSocketAddress());
                assertThat(s.getLocalSocketAddress()).isEqualTo(peer.getRemoteSocketAddress());
                assertThat(s.getChannel()).as("no channel: never parked in the idle selector").isNull();
                assertThat(s.getTcpNoDelay()).isTrue();
            }
        }
    }

    @Test
    void aRefusedConnectIsAConnectExceptionAndLeavesNoFd() throws Exception {
        // held, never listening: 101 connects to a port nothing held could connect one to itself
        InetSocketAddress refusing = new InetSocketAddress(LOOPBACK, FreePorts.refused());
        dialRefused(refusing); // the poller and its fds exist before the count
        long before = openFds();
        for (int i = 0; i < 100; i++) {
            dialRefused(refusing);
        }
        assertThat(openFds()).as("fds after 100 refused connects (a leak would add 100)").isLessThan(before + 10);
    }

    private static void dialRefused(InetSocketAddress refusing) {
        assertThatThrownBy(() -> dial(refusing, 5_000))
                .isInstanceOf(ConnectException.class)
                .hasMessageContaining("Connection refused");
    }

    @Test
    void aConnectIntoABlackHoleEndsAtItsDeadlineAndLeavesNoFd() throws Exception {
        try (BlackHole hole = new BlackHole()) {
            long before = -1;
            for (int i = 0; i < 3; i++) {
                if (i == 1) {
                    before = openFds(); // after the first: the poller and its fds exist
                }
                long start = System.nanoTime();
                assertThatThrownBy(() -> dial(hole.address(), 500))
                        .isInstanceOf(SocketTimeoutException.class)
                        .hasMessageContaining("Connect timed out");
                long took = System.nanoTime() - start;
                assertThat(took).as("waited for its deadline").isGreaterThanOrEqualTo(Duration.ofMillis(500).toNanos());
                assertThat(took).as("and not much beyond").isLessThan(TimeUnit.SECONDS.toNanos(GENEROUS_SECONDS));
            }
            assertThat(openFds()).as("fds after two more timed-out connects (a leak adds 2)").isLessThan(before + 2);
        }
    }

    /**
     * The kernel made the connection but the poller has not reported it by the deadline (it waits for a CPU on a
     * loaded machine: ManyConnectionsIT's 502 "could not be reached" on epoll, session 56): a connection, not a
     * timeout. The poller here is stalled for good: both its loops are held in idle connections' callbacks.
     */
    @Test
    void aConnectTheKernelMadeIsNotATimeoutWhileThePollerLags() throws Exception {
        EpollPoller poller = new EpollPoller(EpollPoller.SPINS, 2_000);
        CountDownLatch release = new CountDownLatch(1);
        List<Socket> held = new ArrayList<>();
        try (ServerSocket trigger = new ServerSocket(0, 50, LOOPBACK);
             ServerSocket origin = new ServerSocket(0, 50, LOOPBACK)) {
            InetSocketAddress triggerAddress = new InetSocketAddress(LOOPBACK, trigger.getLocalPort());
            List<CountDownLatch> ran = List.of(new CountDownLatch(1), new CountDownLatch(1));
            for (CountDownLatch started : ran) {
                EpollSocket idle = onVirtualThread(() -> EpollSocket.connect(poller, triggerAddress, 5_000));
                held.add(idle);
                held.add(trigger.accept());
                idle.whenReadable(() -> {
                    started.countDown();
                    try {
                        release.await(); // the loop that dispatched this is held
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            }
            held.get(1).getOutputStream().write(1);
            assertThat(ran.get(0).await(GENEROUS_SECONDS, TimeUnit.SECONDS)).as("one loop held").isTrue();
            held.get(3).getOutputStream().write(1);
            // the other loop stands in for the held one and is held too; if it never polls, it is stalled already
            ran.get(1).await(1, TimeUnit.SECONDS);

            EpollSocket dialled = dial(poller, new InetSocketAddress(LOOPBACK, origin.getLocalPort()), 300);
            held.add(dialled);
            try (Socket peer = origin.accept()) {
                assertThat(dialled.getRemoteSocketAddress()).isEqualTo(peer.getLocalSocketAddress());
            }
        } finally {
            release.countDown();
            for (Socket s : held) {
                s.close();
            }
        }
    }

    private static EpollSocket dial(EpollPoller poller, InetSocketAddress address, int timeoutMillis)
            throws Exception {
        return onVirtualThread(() -> EpollSocket.connect(poller, address, timeoutMillis));
    }

    @Test
    void anOriginClosingMidBodyReadsAsTheEndAfterEveryByteItSent() throws Exception {
        try (ServerSocket origin = new ServerSocket(0, 50, LOOPBACK)) {
            Thread.ofVirtual().start(() -> {
                try (Socket peer = origin.accept()) {
                    peer.getOutputStream().write(new byte[100_000]); // of a promised larger body, then FIN
                } catch (IOException e) {
                    // the test fails on what it reads
                }
            });
            try (EpollSocket s = dial(new InetSocketAddress(LOOPBACK, origin.getLocalPort()), 5_000)) {
                s.setSoTimeout((int) TimeUnit.SECONDS.toMillis(GENEROUS_SECONDS));
                byte[] all = onVirtualThread(() -> s.getInputStream().readAllBytes());
                assertThat(all).hasSize(100_000);
                assertThat((int) onVirtualThread(() -> s.getInputStream().read())).isEqualTo(-1);
            }
        }
    }

    @Test
    void anOriginResettingMidBodyIsAnExceptionNotAHang() throws Exception {
        try (ServerSocket origin = new ServerSocket(0, 50, LOOPBACK)) {
            CompletableFuture<Void> reset = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try (Socket peer = origin.accept()) {
                    peer.getOutputStream().write(new byte[1000]);
                    peer.getInputStream().read(); // the client's byte: it has read what came before
                    peer.setSoLinger(true, 0); // close with RST
                } catch (IOException e) {
                    reset.completeExceptionally(e);
                    return;
                }
                reset.complete(null);
            });
            try (EpollSocket s = dial(new InetSocketAddress(LOOPBACK, origin.getLocalPort()), 5_000)) {
                s.setSoTimeout((int) TimeUnit.SECONDS.toMillis(GENEROUS_SECONDS));
                assertThat(onVirtualThread(() -> s.getInputStream().readNBytes(1000))).hasSize(1000);
                s.getOutputStream().write(1);
                reset.get(GENEROUS_SECONDS, TimeUnit.SECONDS);
                assertThatThrownBy(() -> onVirtualThread(() -> s.getInputStream().read()))
                        .isInstanceOf(SocketException.class)
                        .hasMessageContaining("Connection reset");
            }
        }
    }

    private static long openFds() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }
}
