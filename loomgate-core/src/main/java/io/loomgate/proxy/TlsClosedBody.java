package io.loomgate.proxy;

import io.loomgate.http.Headers;
import io.loomgate.http1.BodyInputStream;
import io.loomgate.upstream.PooledConnection;
import java.io.IOException;
import javax.net.ssl.SSLException;

/**
 * A response body that ends when an https origin closes the connection (no length, not chunked: RFC 9112 §6.3 rule
 * 8), which is complete only if the origin said so with TLS's close_notify: a connection cut without it (an attacker's
 * FIN or RST, a crash) is a truncation (RFC 9112 §9.8, RFC 8446 §6.1), not the end of the body.
 *
 * <p>Neither provider's socket tells the two apart by its reads (a bare end of the TCP stream reads as -1, as a
 * close_notify does); {@link PooledConnection#endedWithoutCloseNotify} reads the sign each socket the upstream client
 * makes leaves: JSSE's, and the gateway's own engine socket that runs Conscrypt's engine. {@code OriginProbeTest} pins it
 * for both providers (its until-close cases over TLS, with and without close_notify).
 */
final class TlsClosedBody extends BodyInputStream {
    private final BodyInputStream body;
    private final PooledConnection connection;

    private TlsClosedBody(BodyInputStream body, PooledConnection connection) {
        this.body = body;
        this.connection = connection;
    }

    /** The body as it is, or checked at its end when the connection is TLS that can tell a cut from a close. */
    static BodyInputStream of(BodyInputStream body, PooledConnection connection) {
        return connection.tellsCloseNotify() ? new TlsClosedBody(body, connection) : body;
    }

    @Override
    public int read() throws IOException {
        int c = body.read();
        return c < 0 ? checkedEnd() : c;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        int n = body.read(b, off, len);
        return n < 0 ? checkedEnd() : n;
    }

    private int checkedEnd() throws SSLException {
        if (connection.endedWithoutCloseNotify()) {
            throw new SSLException("the origin closed the connection without close_notify: the body may be cut short");
        }
        return -1;
    }

    @Override
    public int available() throws IOException {
        return body.available();
    }

    @Override
    public boolean awaitData() throws IOException {
        boolean more = body.awaitData();
        if (!more) {
            checkedEnd(); // the relay may learn of the end here rather than from read
        }
        return more;
    }

    @Override
    public boolean isComplete() {
        return body.isComplete() && !connection.endedWithoutCloseNotify();
    }

    @Override
    public Headers trailers() {
        return body.trailers();
    }
}
