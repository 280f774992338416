package io.loomgate.security;

/** Where a JwtAuth filter gets its keys: a fixed secret, or a JWKS kept fresh in the background. */
interface KeySource {

    /**
     * The keys a token with this {@code kid} should be checked against. Never waits for a fetch except a bounded
     * wait on a cold start (no keys yet) and on a {@code kid} not seen before (a key rotation), at most once per
     * cool-down; otherwise answers at once from what it has.
     *
     * @throws KeysUnavailable when there are no keys at all (the JWKS could not be fetched yet)
     */
    KeySet keysFor(String kid) throws KeysUnavailable;

    /** The keys as they are now, or null before the first fetch; starts a background refresh when one is due. */
    KeySet current();

    /** The keys cannot be had: the gateway, not the client, is at fault (503). */
    final class KeysUnavailable extends Exception {
        KeysUnavailable(String message) {
            super(message, null, false, false);
        }
    }

    /** A shared secret: one key, forever. */
    record Fixed(KeySet keys) implements KeySource {
        @Override
        public KeySet keysFor(String kid) {
            return keys;
        }

        @Override
        public KeySet current() {
            return keys;
        }
    }
}
