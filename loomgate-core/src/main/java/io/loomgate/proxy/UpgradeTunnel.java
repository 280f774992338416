package io.loomgate.proxy;

import io.loomgate.server.ServerExchange;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.upstream.PooledConnection;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Two byte pipes after a 101 (WebSocket or any other upgrade): client→origin on a second virtual thread,
 * origin→client on the request's own thread. When either direction ends, the other side's output is shut down so its
 * peer sees the end too; when both have ended the exchange is over and both connections close.
 *
 * <p>The exchange has one owner, the request's thread: the second thread only counts its bytes into its own
 * counter, which the request's thread adds to the exchange when the tunnel ends.
 */
final class UpgradeTunnel {
    private UpgradeTunnel() {
    }

    static void run(Exchange x, ServerExchange.Tunnel client, PooledConnection upstream, Duration idleTimeout) {
        Socket up = upstream.socket();
        upstream.setReadTimeout(idleTimeout);
        AtomicLong toOriginBytes = new AtomicLong();
        Thread toOrigin = ConnectionExecutors.startVirtual("tunnel-up-" + x.downstream.connectionId(), () -> {
            pipe(client.fromClient(), upstream.output(), toOriginBytes);
            shutdownOutput(up);
        });
        AtomicLong toClientBytes = new AtomicLong();
        pipe(upstream.input(), client.toClient(), toClientBytes);
        try {
            client.toClient().flush();
        } catch (IOException e) {
            // the client is gone; the other direction ends on its own
        }
        // The origin finished: stop the other direction (the client connection closes when the handler returns).
        try {
            toOrigin.join(idleTimeout.toMillis() + 1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (toOrigin.isAlive()) {
            try {
                up.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
        x.outcome.bytesOut += toClientBytes.get();
        x.outcome.bytesIn += toOriginBytes.get(); // what crossed so far, if the other direction is still winding down
    }

    private static void pipe(InputStream in, OutputStream out, AtomicLong count) {
        byte[] buf = new byte[BodyRelay.UNKNOWN_LENGTH_BUFFER];
        try {
            for (int n; (n = in.read(buf, 0, buf.length)) >= 0; ) {
                out.write(buf, 0, n);
                out.flush();
                count.addAndGet(n);
            }
        } catch (SocketTimeoutException e) {
            // idle beyond the limit: the tunnel ends
        } catch (IOException e) {
            // one side closed or reset: the tunnel ends
        }
    }

    private static void shutdownOutput(Socket s) {
        try {
            if (!s.isClosed()) {
                s.shutdownOutput();
            }
        } catch (IOException e) {
            // already closed
        }
    }
}
