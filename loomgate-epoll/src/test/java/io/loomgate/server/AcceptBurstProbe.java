package io.loomgate.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The child JVM of {@link EpollAcceptBurstTest}: bursts of connections to an epoll listening socket whose accepting
 * virtual thread hands each connection to a virtual thread that polls with timed parks before closing it (as the
 * fuzz test's helpers do). Prints each burst's drain time; exits 1 when a burst is not drained within the bound.
 * Arguments: bursts, connections per burst, seconds a burst may take.
 */
final class AcceptBurstProbe {
    private AcceptBurstProbe() {
    }

    public static void main(String[] args) throws Exception {
        int bursts = Integer.parseInt(args[0]);
        int perBurst = Integer.parseInt(args[1]);
        long boundNanos = TimeUnit.SECONDS.toNanos(Long.parseLong(args[2]));
        EpollPoller poller = EpollPoller.shared();
        AtomicInteger accepted = new AtomicInteger();
        AtomicInteger closed = new AtomicInteger();
        InetAddress loopback = InetAddress.getLoopbackAddress();
        try (EpollServerSocket server = EpollServerSocket.listen(poller, new InetSocketAddress(loopback, 0), 4096)) {
            Thread.ofVirtual().name("acceptor").start(() -> {
                while (true) {
                    Socket s;
                    try {
                        s = server.accept();
                    } catch (IOException e) {
                        return;
                    }
                    accepted.incrementAndGet();
                    Thread.ofVirtual().start(() -> {
                        for (int i = 0; i < 3; i++) {
                            LockSupport.parkNanos(1_000_000L); // timed parks: submissions from outside the carrier
                        }
                        try {
                            s.close();
                        } catch (IOException e) {
                            // closing ours only
                        }
                        closed.incrementAndGet();
                    });
                }
            });
            long worst = 0;
            for (int b = 0; b < bursts; b++) {
                List<Socket> clients = new ArrayList<>();
                int target = accepted.get() + perBurst;
                long start = System.nanoTime();
                for (int i = 0; i < perBurst; i++) {
                    clients.add(new Socket(loopback, server.getLocalPort())); // platform thread: the kernel accepts
                }
                long deadline = start + boundNanos;
                while (accepted.get() < target && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
                long took = System.nanoTime() - start;
                worst = Math.max(worst, took);
                if (accepted.get() < target) {
                    System.out.printf("burst %d: STALL, %d of %d accepted after %d ms (handoffs %d)%n", b,
                            perBurst - (target - accepted.get()), perBurst, took / 1_000_000, poller.handoffs());
                    System.exit(1);
                }
                for (Socket c : clients) {
                    c.close();
                }
            }
            System.out.printf("every burst drained; worst %d ms; handoffs %d; blocks on carrier %s%n",
                    worst / 1_000_000, poller.handoffs(), poller.blocksOnCarrier());
        }
        System.exit(0);
    }
}
