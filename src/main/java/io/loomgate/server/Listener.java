package io.loomgate.server;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ExecutorService;

/**
 * Accepts connections on one address and runs each on the executor it was given, as a {@link ClientConnection}.
 * Lifecycle: new → {@link #start()} (bound and accepting) → {@link #drain(Duration)} (stop accepting, close idle
 * connections, wait for busy ones) → closed.
 */
public final class Listener implements AutoCloseable {

    public Listener(ListenerSettings settings, ExchangeHandler handler, ExecutorService executor,
                    ConnectionListener events) {
        throw new UnsupportedOperationException("stub");
    }

    /** Binds and starts the accept loop; returns once bound. */
    public Listener start() throws IOException {
        throw new UnsupportedOperationException("stub");
    }

    /** The bound address (with the real port when 0 was asked). */
    public InetSocketAddress address() {
        throw new UnsupportedOperationException("stub");
    }

    public int port() {
        return address().getPort();
    }

    /** Client connections open now. */
    public int openConnections() {
        throw new UnsupportedOperationException("stub");
    }

    /**
     * Stops accepting, closes idle keep-alive connections, lets requests in flight finish until the timeout, then
     * closes what is left. Returns whether every connection finished in time.
     */
    public boolean drain(Duration timeout) throws InterruptedException {
        throw new UnsupportedOperationException("stub");
    }

    /** Drains with no grace period. */
    @Override
    public void close() {
        throw new UnsupportedOperationException("stub");
    }
}
