package io.loomgate.tls;

/** Whether a listener asks clients for a certificate: Spring Boot's {@code server.ssl.client-auth}. */
public enum ClientAuth {
    /** Never asks. */
    NONE,
    /** Asks; a client without one is served, without X-Forwarded-Client-Cert. */
    WANT,
    /** Requires one the trust certificate's CAs signed; the handshake fails otherwise. */
    NEED
}
