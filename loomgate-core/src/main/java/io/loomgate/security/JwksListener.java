package io.loomgate.security;

import java.util.Locale;

/**
 * Events of the {@code JwtAuth} key sources, for metrics: each fetch of a JWK set from its URL, or each re-read of a
 * {@code jwks-file}, and how it ended. A failed fetch keeps the keys fetched before, so without this an identity
 * provider that has been unreachable for hours shows only in one log line; an operator alerts on the failures' rate.
 * Called on the key source's refresh thread: implementations must be fast and must not throw.
 */
public interface JwksListener {
    JwksListener NOOP = new JwksListener() {
    };

    /** How one fetch ended. */
    enum Outcome {
        /** A JWK set was read and parsed (unchanged or new). */
        FETCHED,
        /**
         * The fetch failed: unreachable, timed out, a status other than 200, a TLS failure, or a document that is
         * not a JWK set. The keys fetched before stay in use.
         */
        FAILED;

        /** The outcome as a metric label writes it. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * One fetch of {@code source} (the URL without its user info and query, or the file's path: from the
     * configuration, so a bounded set) ended with {@code outcome}.
     */
    default void fetched(String source, Outcome outcome) {
    }
}
