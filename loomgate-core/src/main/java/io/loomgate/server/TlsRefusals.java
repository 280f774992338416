package io.loomgate.server;

import io.loomgate.tls.ServerTls;
import java.net.InetSocketAddress;
import java.net.Socket;
import javax.net.ssl.SSLSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client refused after its TLS handshake (a TLS 1.2 renegotiation, a flood of key updates or empty records: see
 * {@link ServerTls#refusal}) is counted and logged as a refused handshake is: {@code
 * loomgate_client_tls_handshakes_failed_total{reason="failed"}} and one debug line. Both are handshake messages the
 * gateway would not take, and an operator watching that series for refused clients should see these too; the refusal
 * surfaces as a failed read inside a codec, which only ends the connection, so it is counted at the connection's end.
 */
final class TlsRefusals {
    private static final Logger log = LoggerFactory.getLogger(ClientConnection.class);

    private TlsRefusals() {
    }

    /** Counts the refusal of connection {@code id} on {@code socket}, if there was one. */
    static void count(long id, Socket socket, InetSocketAddress remote, ConnectionListener events) {
        String why = socket instanceof SSLSocket s ? ServerTls.refusal(s) : null;
        if (why != null) {
            log.debug("connection {}: TLS refused after the handshake: {}", id, why);
            events.tlsHandshakeFailed(remote, ConnectionListener.HandshakeFailure.FAILED);
        }
    }
}
