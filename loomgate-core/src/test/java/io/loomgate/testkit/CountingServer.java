package io.loomgate.testkit;

import io.loomgate.threads.ConnectionExecutors;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP server on 127.0.0.1 and an ephemeral port that accepts connections, keeps them open and counts them; it never
 * reads or writes unless a test does so through {@link #accepted(int)}. For tests of connection handling (pools,
 * listeners) that care about how many connections were opened, not about HTTP.
 */
public final class CountingServer implements AutoCloseable {
    private final ServerSocket server;
    private final List<Socket> accepted = new CopyOnWriteArrayList<>();
    private final Thread acceptLoop;

    public CountingServer() throws IOException {
        server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        acceptLoop = ConnectionExecutors.startDaemon("counting-server-" + server.getLocalPort(), this::acceptAll);
    }

    private void acceptAll() {
        while (!server.isClosed()) {
            try {
                accepted.add(server.accept());
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    public String host() {
        return server.getInetAddress().getHostAddress();
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Connections accepted so far. The kernel completes a connect before accept runs, so poll: {@link #awaitCount}. */
    public int count() {
        return accepted.size();
    }

    /** Waits until at least {@code n} connections were accepted; fails after 5 s. */
    public void awaitCount(int n) {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (accepted.size() < n) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("expected " + n + " accepted connections, saw " + accepted.size());
            }
            LockSupport.parkNanos(Duration.ofMillis(1).toNanos());
        }
    }

    /** The server side of the {@code index}th accepted connection (0-based), waiting for it to be accepted. */
    public Socket accepted(int index) {
        awaitCount(index + 1);
        return accepted.get(index);
    }

    /** Closes the server side of every accepted connection, as an origin does when its keep-alive timeout ends. */
    public void closeAccepted() {
        for (Socket socket : accepted) {
            try {
                socket.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        closeAccepted();
        try {
            acceptLoop.join(Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
