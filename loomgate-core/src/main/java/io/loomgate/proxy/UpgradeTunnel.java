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

/**
 * Two byte pipes after a 101 (WebSocket or any other upgrade): client→origin on a second virtual thread,
 * origin→client on the request's own thread. When either direction ends, the other side's output is shut down so its
 * peer sees the end too; when both have ended the exchange is over and both connections close.
 */
final class UpgradeTunnel {
    private UpgradeTunnel() {
    }

    static void run(Exchange x, ServerExchange.Tunnel client, PooledConnection upstream, Duration idleTimeout)
            throws IOException {
        Socket up = upstream.socket();
        upstream.setReadTimeout(idleTimeout);
        Thread toOrigin = ConnectionExecutors.startVirtual("tunnel-up-" + x.downstream.connectionId(), () -> {
            long n = pipe(client.fromClient(), upstream.output());
            x.bytesIn += n;
            shutdownOutput(up);
        });
        long n = pipe(upstream.input(), client.toClient());
        x.bytesOut += n;
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
            up.close();
        }
    }

    private static long pipe(InputStream in, OutputStream out) {
        byte[] buf = new byte[16 * 1024];
        long total = 0;
        try {
            for (int n; (n = in.read(buf, 0, buf.length)) >= 0; ) {
                out.write(buf, 0, n);
                out.flush();
                total += n;
            }
        } catch (SocketTimeoutException e) {
            // idle beyond the limit: the tunnel ends
        } catch (IOException e) {
            // one side closed or reset: the tunnel ends
        }
        return total;
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
