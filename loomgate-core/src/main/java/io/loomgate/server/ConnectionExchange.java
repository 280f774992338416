package io.loomgate.server;

import io.loomgate.http.ConnectionAttributes;
import io.loomgate.http.Headers;
import io.loomgate.http.Method;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import io.loomgate.http1.BodyFraming;
import java.net.InetSocketAddress;

/**
 * What an exchange on a client connection answers alike over HTTP/1.1 and HTTP/2: the request's head and framing, its
 * place on the connection, and the connection's facts (addresses, id, TLS). Each protocol's exchange adds how the
 * body is read and the response sent.
 */
abstract class ConnectionExchange implements ServerExchange {
    final ClientConnection connection;
    final RequestHead request;
    private final BodyFraming framing;
    private final int index;

    ConnectionExchange(ClientConnection connection, RequestHead request, BodyFraming framing, int index) {
        this.connection = connection;
        this.request = request;
        this.framing = framing;
        this.index = index;
    }

    @Override
    public final RequestHead request() {
        return request;
    }

    @Override
    public final BodyFraming requestFraming() {
        return framing;
    }

    @Override
    public final InetSocketAddress remoteAddress() {
        return connection.remote();
    }

    @Override
    public final String remoteIp() {
        return connection.remoteIp();
    }

    @Override
    public final InetSocketAddress localAddress() {
        return connection.local();
    }

    @Override
    public final int requestIndex() {
        return index;
    }

    @Override
    public final long connectionId() {
        return connection.id();
    }

    @Override
    public final ConnectionAttributes connectionAttributes() {
        return connection.attributes();
    }

    @Override
    public final boolean cutByDrain() {
        return connection.drainCut().isCut();
    }

    @Override
    public final boolean closedAtDrainsDeadline() {
        return connection.drainCut().isClosed();
    }

    @Override
    public final TlsInfo tls() {
        return connection.tls();
    }

    /** Whether the request is a HEAD: its response's body never reaches the client. */
    final boolean isHeadRequest() {
        return Method.HEAD.equals(request.method());
    }

    /** Refuses a head that is not an interim one (1xx but not 101) where one is asked for. */
    static void checkInterim(ResponseHead head) {
        if (!head.isInformational() || head.status() == 101) {
            throw new IllegalArgumentException("not an interim status: " + head.status());
        }
    }

    /**
     * Sets Content-Length to {@code length}. A head whose one Content-Length already spells it (an origin's, which the
     * response's framing was read from: nearly every proxied fixed-length response) keeps its field, so no string is
     * made for it per response.
     */
    static void setContentLength(Headers h, long length) {
        int i = h.indexOf("Content-Length", 0);
        if (i < 0 || h.indexOf("Content-Length", i + 1) >= 0 || !spells(h.value(i), length)) {
            h.set("Content-Length", Long.toString(length));
        }
    }

    /** Whether {@code value} is exactly {@code n} written in decimal (as {@link Long#toString(long)} writes it). */
    private static boolean spells(String value, long n) {
        int k = value.length();
        do {
            if (k == 0 || value.charAt(--k) != (char) ('0' + n % 10)) {
                return false;
            }
            n /= 10;
        } while (n > 0);
        return k == 0;
    }
}
