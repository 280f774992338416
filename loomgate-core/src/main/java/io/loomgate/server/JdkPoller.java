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
 * the backlog when the gateway starts). So a virtual thread of its own makes one timed read on a loopback connection
 * first, which has the JDK build it while descriptors are free.
 * <p>
 * That takes a virtual thread's start, the JDK's carrier and poller threads' start and a 1 ms read timeout: about
 * 10 ms of wall time at start on two busy cores, once waited for by the listener's bind. {@link #start} begins it
 * in the background as soon as the gateway's start knows the listener will use the JDK's sockets, and
 * {@link #initialize} (the bind) waits only for what is left.
 */
final class JdkPoller {
    /** The virtual thread that sets the poller up, once per process. */
    private static final AtomicReference<Thread> SETUP = new AtomicReference<>();
    /** What it failed with, if it did. */
    private static final AtomicReference<Throwable> FAILURE = new AtomicReference<>();
    private static volatile boolean ready;

    private JdkPoller() {
    }

    /** Begins setting the poller up on a virtual thread, unless that began already; returns at once. */
    static void start() {
        if (SETUP.get() != null) {
            return;
        }
        Thread setup = Thread.ofVirtual().name("loomgate-poller-init").unstarted(JdkPoller::parkOnce);
        if (SETUP.compareAndSet(null, setup)) {
            setup.start();
        }
    }

    /**
     * Returns once the poller is set up ({@link #start started} here if it was not); a poller that cannot be built
     * is an {@link IOException} (the start fails, clearly), now and at every later call.
     */
    static void initialize() throws IOException {
        if (ready) {
            return;
        }
        start();
        try {
            SETUP.get().join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while the JDK's virtual-thread poller was set up", e);
        }
        Throwable failure = FAILURE.get();
        if (failure != null) {
            throw new IOException("the JDK's poller for virtual threads could not be set up: " + failure, failure);
        }
        ready = true;
    }

    /** On the setup's virtual thread: a connection to itself, and a read that parks until its 1 ms deadline. */
    private static void parkOnce() {
        try (ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             SocketChannel client = SocketChannel.open(server.getLocalAddress());
             SocketChannel accepted = server.accept()) {
            Socket s = client.socket();
            s.setSoTimeout(1);
            s.getInputStream().read(); // nothing is sent: it parks (the poller is built) and times out
        } catch (SocketTimeoutException expected) {
            // the poller parked the thread and woke it at the deadline
        } catch (IOException | Error e) {
            FAILURE.set(e);
        }
    }
}
