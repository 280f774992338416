package io.loomgate.upstream;

import java.security.Security;

/**
 * The JDK's cache of successful name lookups, which DNS refresh must see through. The JDK keeps an answer for
 * {@code networkaddress.cache.ttl} seconds (30 by default, whatever the record's own TTL), so a refresh every 30 s
 * through it could see a change a whole minute late, or be handed the answer it got last time. The JDK reads the
 * setting once, at the first name lookup of the JVM, so the composition root calls {@link #shorten()} before
 * anything is looked up.
 */
public final class JdkDnsCache {
    /** The JDK's security property for successful lookups. */
    static final String TTL_PROPERTY = "networkaddress.cache.ttl";
    /** Its older system-property spelling, which the JDK honours when the security property is unset. */
    static final String LEGACY_TTL_PROPERTY = "sun.net.inetaddr.ttl";
    /** What the gateway sets: short enough that every refresh sees a fresh answer, long enough that a burst of
     * dials to a name with refresh off makes one lookup per second, not one per connection. */
    static final String GATEWAY_TTL_SECONDS = "1";

    private JdkDnsCache() {
    }

    /**
     * Caps the JDK's positive cache at {@value #GATEWAY_TTL_SECONDS} s unless the operator chose a value (in
     * {@code java.security}, with {@code -Djava.security.properties}, or {@code -Dsun.net.inetaddr.ttl}). Has no
     * effect once the JVM has looked up a name. Idempotent.
     * <p>
     * It sets the system property, which the JDK reads when the security property is unset (as checked here), rather
     * than the security property: {@code Security.setProperty} emits a security event whose logger bootstraps the
     * JDK's {@code System.Logger} (a service lookup over the class path), about 10 ms of the main thread at start.
     *
     * @return true when it set the property
     */
    public static boolean shorten() {
        if (Security.getProperty(TTL_PROPERTY) != null || System.getProperty(LEGACY_TTL_PROPERTY) != null) {
            return false;
        }
        System.setProperty(LEGACY_TTL_PROPERTY, GATEWAY_TTL_SECONDS);
        return true;
    }
}
