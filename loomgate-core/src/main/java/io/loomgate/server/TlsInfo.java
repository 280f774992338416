package io.loomgate.server;

import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;

/**
 * What a client connection's TLS handshake settled, read once after it.
 *
 * @param protocol            TLSv1.3 or TLSv1.2
 * @param cipherSuite         e.g. TLS_AES_128_GCM_SHA256
 * @param applicationProtocol the ALPN protocol chosen ({@code http/1.1}, {@code h2}); empty when the client
 *                            offered none
 * @param clientCertificate   the client's certificate, verified against the trust certificate; null when none
 */
public record TlsInfo(String protocol, String cipherSuite, String applicationProtocol,
                      X509Certificate clientCertificate) {

    static TlsInfo of(SSLSocket socket) {
        SSLSession session = socket.getSession();
        X509Certificate peer = null;
        // Only asked when the listener asks clients for one: without client-auth both providers answer by throwing,
        // and filling in that exception's stack trace was a visible share of a new connection's CPU.
        if (socket.getNeedClientAuth() || socket.getWantClientAuth()) {
            try {
                Certificate[] chain = session.getPeerCertificates();
                if (chain.length > 0 && chain[0] instanceof X509Certificate x) {
                    peer = x;
                }
            } catch (SSLPeerUnverifiedException e) {
                // want, and the client sent none
            }
        }
        String alpn = socket.getApplicationProtocol();
        return new TlsInfo(session.getProtocol(), session.getCipherSuite(), alpn == null ? "" : alpn, peer);
    }
}
