package io.loomgate.proxy;

import io.loomgate.http.Headers;
import io.loomgate.http1.BodyInputStream;
import java.io.IOException;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;

/**
 * A response body that ends when an https origin closes the connection (no length, not chunked: RFC 9112 §6.3 rule
 * 8), which is complete only if the origin said so with TLS's close_notify: a connection cut without it (an attacker's
 * FIN or RST, a crash) is a truncation (RFC 9112 §9.8, RFC 8446 §6.1), not the end of the body.
 *
 * <p>JSSE's SSLSocket does not tell the two apart itself unless the whole JVM sets
 * {@code com.sun.net.ssl.requireCloseNotify}: a bare end of the TCP stream reads as -1, as a close_notify does. What
 * differs is what it leaves behind: on the bare end it shuts the socket's input down itself
 * ({@code SSLSocketImpl.handleEOF}), after a close_notify it does not. That is the sign read here, on JSSE's
 * sockets only; {@code OriginProbeTest} pins it (its until-close cases over TLS, with and without close_notify).
 */
final class TlsClosedBody extends BodyInputStream {
    private final BodyInputStream body;
    private final SSLSocket socket;

    private TlsClosedBody(BodyInputStream body, SSLSocket socket) {
        this.body = body;
        this.socket = socket;
    }

    /** The body as it is, or checked at its end when the socket is JSSE's TLS. */
    static BodyInputStream of(BodyInputStream body, java.net.Socket socket) {
        return socket instanceof SSLSocket ssl && ssl.getClass().getName().startsWith("sun.security.ssl.")
                ? new TlsClosedBody(body, ssl) : body;
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
        if (socket.isInputShutdown()) {
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
        return body.isComplete() && !socket.isInputShutdown();
    }

    @Override
    public Headers trailers() {
        return body.trailers();
    }
}
