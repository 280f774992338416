package io.loomgate.tls;

/**
 * Which TLS implementation runs the handshakes and records of a listener ({@code server.ssl.provider}) or of the
 * connections to {@code https://} origins ({@code upstream.ssl.provider}).
 *
 * <p>Every other TLS user in the gateway (Redis, JWKS fetches, health checks' own clients) stays on the JDK's.
 */
public enum TlsProvider {
    /** The JDK's own (JSSE): always available, the default. */
    JDK,
    /**
     * Google's Conscrypt (BoringSSL through JNI), on its engine socket only. Needs JDK 24 or newer: its socket holds
     * {@code synchronized} monitors around blocking socket I/O, which pin a virtual thread's carrier before JEP 491.
     */
    CONSCRYPT;

    /** The oldest JDK on which a virtual thread blocked inside {@code synchronized} releases its carrier. */
    public static final int CONSCRYPT_MIN_JDK = 24;

    /**
     * Throws when this provider cannot run in this JVM (the config reader refuses such a config first, naming its
     * key; this is the guard for code that builds settings itself).
     */
    void requireAvailable() {
        String unavailable = unavailableReason();
        if (unavailable != null) {
            throw new IllegalStateException(unavailable);
        }
    }

    /** Why this provider cannot run in this JVM, or null when it can. */
    public String unavailableReason() {
        return this == JDK ? null : ConscryptSupport.unavailableReason(Runtime.version().feature());
    }
}
