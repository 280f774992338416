package io.loomgate.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;

/**
 * A loopback port whose connects never complete, for connect-timeout tests without a route to a real black hole: a
 * listener with a backlog of one that never accepts, its accept queue filled by the sockets made here. Linux drops a
 * SYN to a listener whose accept queue is full (no answer, no reset), so a connect to {@link #address()} waits until
 * its own timeout. The queue counts as full once one of the filling connects itself timed out.
 */
public final class BlackHole implements AutoCloseable {
    private static final int FILL_TIMEOUT_MILLIS = 300;
    private static final int MOST_FILLERS = 64;

    private final ServerSocket listener;
    private final List<Socket> fillers = new ArrayList<>();

    /**
     * @throws IllegalStateException when the kernel kept answering (a queue that never fills: not Linux's rule)
     */
    public BlackHole() throws IOException {
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
                + MOST_FILLERS + " connects: no black hole on this kernel");
    }

    public InetSocketAddress address() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort());
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** The listener, for {@link SlowAccept}, which starts accepting on it. */
    ServerSocket listener() {
        return listener;
    }

    @Override
    public void close() throws IOException {
        for (Socket s : fillers) {
            s.close();
        }
        listener.close();
    }
}
