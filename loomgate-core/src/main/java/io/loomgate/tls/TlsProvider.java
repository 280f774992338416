package io.loomgate.tls;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which TLS implementation runs the handshakes and records of a listener ({@code server.ssl.provider}) or of the
 * connections to {@code https://} origins ({@code upstream.ssl.provider}), and what {@code provider: auto} picks.
 *
 * <p>Every other TLS user in the gateway (Redis, JWKS fetches, health checks' own clients) stays on the JDK's.
 */
public enum TlsProvider {
    /** The JDK's own (JSSE): always available. */
    JDK,
    /**
     * Google's Conscrypt (BoringSSL through JNI), on its engine socket only. Needs JDK 24 or newer: its socket holds
     * {@code synchronized} monitors around blocking socket I/O, which pin a virtual thread's carrier before JEP 491.
     */
    CONSCRYPT;

    private static final Logger log = LoggerFactory.getLogger(TlsProvider.class);

    /** The oldest JDK on which a virtual thread blocked inside {@code synchronized} releases its carrier. */
    public static final int CONSCRYPT_MIN_JDK = 24;

    /**
     * Where {@code auto} tries Conscrypt: the platforms whose native library the Conscrypt jar ships and on which it
     * was measured (glibc Linux; on musl the library does not load, and {@code auto} falls back to the JDK's).
     */
    static final Set<String> CONSCRYPT_ARCHES = Set.of("amd64", "x86_64", "aarch64");

    /** What {@code provider: auto} chose, and why (for the start-up log and the docs). */
    public record Choice(TlsProvider provider, String reason) {
    }

    /** The platform's answer, found once per JVM (the native library's load is tried at most once). */
    private static final class Platform {
        static final Choice CHOICE = log(choose(System.getProperty("os.name", ""), System.getProperty("os.arch", ""),
                Runtime.version().feature(), () -> ConscryptSupport.unavailableReason(Runtime.version().feature())));

        private static Choice log(Choice c) {
            log.info("TLS provider auto: {} ({})", c.provider().name().toLowerCase(Locale.ROOT), c.reason());
            return c;
        }
    }

    /**
     * {@code provider: auto}: Conscrypt where it runs and was measured (glibc Linux on x86-64 or aarch64, JDK 24+,
     * its native library loads), the JDK's elsewhere. A Conscrypt choice falls back to the JDK's for settings that
     * BoringSSL would refuse (a {@code ciphers} list naming only some TLS 1.3 suites), so {@code auto} never turns a
     * valid configuration into a refused one. docs/security.md says why Conscrypt is preferred.
     */
    public static Choice auto(List<String> ciphers, List<String> protocols) {
        Choice platform = Platform.CHOICE;
        if (platform.provider() == CONSCRYPT) {
            try {
                ConscryptSupport.get().checkCiphers(ciphers, protocols);
            } catch (IllegalArgumentException e) {
                Choice jdk = new Choice(JDK, "the ciphers list narrows TLS 1.3, which BoringSSL cannot do");
                log.info("TLS provider auto: jdk ({})", jdk.reason());
                return jdk;
            }
        }
        return platform;
    }

    /** The choice for a platform; {@code conscryptUnavailable} is asked last (it loads the native library). */
    static Choice choose(String os, String arch, int jdkFeature, Supplier<String> conscryptUnavailable) {
        if (!os.toLowerCase(Locale.ROOT).startsWith("linux") || !CONSCRYPT_ARCHES.contains(arch)) {
            return new Choice(JDK, "Conscrypt is used on Linux x86-64 and aarch64 only; this is " + os + " " + arch);
        }
        if (jdkFeature < CONSCRYPT_MIN_JDK) {
            return new Choice(JDK, "Conscrypt needs JDK " + CONSCRYPT_MIN_JDK + " or newer; this is JDK " + jdkFeature);
        }
        String unavailable = conscryptUnavailable.get();
        if (unavailable != null) {
            return new Choice(JDK, unavailable);
        }
        return new Choice(CONSCRYPT, "JDK " + jdkFeature + " on Linux " + arch
                + ", BoringSSL's native library loaded: cheaper handshakes and records than JSSE's");
    }

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
