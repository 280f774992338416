package io.loomgate.server;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/** Ping-pong pairs on epoll; every so often a virtual thread started from a virtual thread: how long until it runs. */
public class StarveProbe {
    public static void main(String[] a) throws Exception {
        int pairs = Integer.parseInt(a[0]);
        long seconds = Long.parseLong(a[1]);
        EpollPoller poller = EpollPoller.shared();
        InetAddress lo = InetAddress.getLoopbackAddress();
        AtomicLong worstStart = new AtomicLong();
        AtomicLong worstTimed = new AtomicLong();
        AtomicLong rounds = new AtomicLong();
        AtomicLong starts = new AtomicLong();
        EpollServerSocket server = EpollServerSocket.listen(poller, new InetSocketAddress(lo, 0), 1024);
        Thread.ofVirtual().start(() -> {
            try {
                while (true) {
                    Socket s = server.accept();
                    Thread.ofVirtual().start(() -> {
                        try {
                            byte[] b = new byte[1];
                            while (s.getInputStream().read(b) > 0) {
                                s.getOutputStream().write(b);
                            }
                        } catch (Exception e) { }
                    });
                }
            } catch (Exception e) { }
        });
        for (int i = 0; i < pairs; i++) {
            Thread.ofVirtual().start(() -> {
                try (EpollSocket s = EpollSocket.connect(poller, new InetSocketAddress(lo, server.getLocalPort()), 10000)) {
                    byte[] b = new byte[1];
                    long n = 0;
                    while (true) {
                        s.getOutputStream().write(b);
                        s.getInputStream().read(b);
                        rounds.incrementAndGet();
                        if (++n % 200 == 0) {
                            long t0 = System.nanoTime();
                            Thread.ofVirtual().start(() -> { starts.incrementAndGet(); worstStart.accumulateAndGet(System.nanoTime() - t0, Math::max); });
                        }
                        if (n % 500 == 0) {
                            long t0 = System.nanoTime();
                            LockSupport.parkNanos(1_000_000L);
                            worstTimed.accumulateAndGet(System.nanoTime() - t0 - 1_000_000L, Math::max);
                        }
                    }
                } catch (Exception e) { e.printStackTrace(); }
            });
        }
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < end) {
            Thread.sleep(1000);
            System.out.printf("rounds %d starts %d worst start %d ms worst timed-park overrun %d ms handoffs %d%n", rounds.get(), starts.get(),
                    worstStart.getAndSet(0) / 1_000_000, worstTimed.getAndSet(0) / 1_000_000, poller.handoffs());
        }
        System.exit(0);
    }
}
