package io.loomgate.testkit;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * An origin slow at two stages of a dial: its TCP connect is slow, then what follows (a TLS handshake, an HTTP/2
 * preface's SETTINGS) never comes. A {@link BlackHole} (a listener with a backlog of one whose accept queue is full,
 * so Linux drops a client's SYN); {@link #openAfter} starts accepting, and the client's SYN, sent
 * again by its kernel about one second after the first (the initial retransmission timeout), completes the connect.
 * Every connection accepted is held without a byte written back, as {@link StalledHandshake} holds them.
 *
 * <p>So a dial started just before {@code openAfter(d)} (d under a second) connects after about one second, and then
 * stalls.
 */
public final class SlowAccept implements AutoCloseable {
    private final BlackHole hole;
    private final List<Socket> held = new CopyOnWriteArrayList<>();
    private final List<Long> acceptedAt = new CopyOnWriteArrayList<>();

    /**
     * @throws IllegalStateException when the kernel kept answering (a queue that never fills: not Linux's rule)
     */
    public SlowAccept() throws IOException {
        hole = new BlackHole();
    }

    public InetSocketAddress address() {
        return hole.address();
    }

    public int port() {
        return hole.port();
    }

    /**
     * Starts accepting after {@code millis} (the origin's slowness under test, not a wait for readiness), on a thread
     * of its own; returns at once.
     */
    public void openAfter(long millis) {
        ServerSocket listener = hole.listener();
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
        hole.close();
        for (Socket s : held) {
            s.close();
        }
    }
}
