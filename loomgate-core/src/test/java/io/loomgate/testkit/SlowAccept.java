package io.loomgate.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * An origin slow at two stages of a dial: its TCP connect is slow, then what follows (a TLS handshake, an HTTP/2
 * preface's SETTINGS) never comes. A listener with a backlog of one whose accept queue is filled first, as in
 * {@link BlackHole}, so Linux drops a client's SYN; {@link #openAfter} starts accepting, and the client's SYN, sent
 * again by its kernel about one second after the first (the initial retransmission timeout), completes the connect.
 * Every connection accepted is held without a byte written back, as {@link StalledHandshake} holds them.
 *
 * <p>So a dial started just before {@code openAfter(d)} (d under a second) connects after about one second, and then
 * stalls.
 */
public final class SlowAccept implements AutoCloseable {
    private static final int FILL_TIMEOUT_MILLIS = 300;
    private static final int MOST_FILLERS = 64;

    private final ServerSocket listener;
    private final List<Socket> fillers = new ArrayList<>();
    private final List<Socket> held = new CopyOnWriteArrayList<>();
    private final List<Long> acceptedAt = new CopyOnWriteArrayList<>();

    /**
     * @throws IllegalStateException when the kernel kept answering (a queue that never fills: not Linux's rule)
     */
    public SlowAccept() throws IOException {
        listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        try {
            for (int i = 0; i < MOST_FILLERS; i++) {
                Socket s = new Socket();
                fillers.add(s);
                try {
                    s.connect(address(), FILL_TIMEOUT_MILLIS);
                } catch (SocketTimeoutException full) {
                    return;
                }
            }
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
        close();
        throw new IllegalStateException("the accept queue of a listener with backlog 1 never filled after "
                + MOST_FILLERS + " connects: no slow accept on this kernel");
    }

    public InetSocketAddress address() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort());
    }

    public int port() {
        return listener.getLocalPort();
    }

    /**
     * Starts accepting after {@code millis} (the origin's slowness under test, not a wait for readiness), on a thread
     * of its own; returns at once.
     */
    public void openAfter(long millis) {
        Thread.ofVirtual().name("slow-accept").start(() -> {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(millis));
            while (!listener.isClosed()) {
                try {
                    held.add(listener.accept());
                    acceptedAt.add(System.nanoTime());
                } catch (IOException e) {
                    return; // closed
                }
            }
        });
    }

    /** {@link System#nanoTime()} of each accept, the fillers' among them. */
    public List<Long> acceptedAt() {
        return List.copyOf(acceptedAt);
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket s : fillers) {
            s.close();
        }
        for (Socket s : held) {
            s.close();
        }
    }
}
