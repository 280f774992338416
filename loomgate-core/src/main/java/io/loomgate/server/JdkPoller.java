package io.loomgate.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Makes the JDK set up the poller that parks virtual threads on sockets before a listener accepts anything. The JDK
 * creates it when a virtual thread first blocks on a socket, with descriptors of its own (an epoll instance and a
 * wake-up pipe per poller); if that first block comes while a crowd of new connections holds every descriptor, its
 * class initialisation fails, and the JDK never retries: from then on every blocking socket operation of every
 * virtual thread fails with "Could not initialize class sun.nio.ch.Poller" (found by {@code FdLimitIT}: a crowd in
 * the backlog when the gateway starts). So the listener makes one timed read on a loopback connection of its own from
 * a virtual thread first, which has the JDK build it while descriptors are free.
 */
final class JdkPoller {
    private static volatile boolean ready;

    private JdkPoller() {
    }

    /** Once per process; a poller that cannot be built now is an {@link IOException} (the start fails, clearly). */
    static void initialize() throws IOException {
        if (ready) {
            return;
        }
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             SocketChannel client = SocketChannel.open(server.getLocalAddress());
             SocketChannel accepted = server.accept()) {
            Thread reader = Thread.ofVirtual().name("loomgate-poller-init").start(() -> {
                try {
                    Socket s = client.socket();
                    s.setSoTimeout(1);
                    s.getInputStream().read(); // nothing is sent: it parks (the poller is built) and times out
                } catch (SocketTimeoutException expected) {
                    // the poller parked the thread and woke it at the deadline
                } catch (IOException | Error e) {
                    failure.set(e);
                }
            });
            reader.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while the JDK's virtual-thread poller was set up", e);
        }
        if (failure.get() != null) {
            throw new IOException("the JDK's poller for virtual threads could not be set up: " + failure.get(),
                    failure.get());
        }
        ready = true;
    }
}
