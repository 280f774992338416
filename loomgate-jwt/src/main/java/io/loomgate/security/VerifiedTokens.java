package io.loomgate.security;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Tokens that passed every check, by the SHA-256 of their text, until they expire. A signature check (ES256: tens of
 * microseconds) costs more than proxying a small request, and clients send the same token many times, so a token
 * seen before costs one hash and one map lookup. The hash, not the token, is the key: a lookup compares digests, so
 * its timing says nothing about any stored token.
 *
 * <p>An entry is used only while the key set it was verified against is the current one (a rotation or removal
 * of keys re-verifies everything) and until its {@code exp} plus the clock skew. Bounded: at {@code capacity},
 * expired entries are swept, and if none were, the map is emptied (a burst of new tokens costs verifications, never
 * memory). Lock-free for readers; concurrent writers may race, which is harmless (the same value is written).
 */
final class VerifiedTokens {
    private static final MessageDigest SHA256 = sha256();

    /** A verified token's result, with the key set it was checked against and when it stops being valid. */
    record Entry(JwtVerifier.Verified token, KeySet keys, long validUntilMillis) {
    }

    /** The 256-bit digest as four longs: cheap equals and hashCode. */
    record Hash(long a, long b, long c, long d) {
        static Hash of(String token) {
            MessageDigest md;
            try {
                md = (MessageDigest) SHA256.clone();
            } catch (CloneNotSupportedException e) {
                md = sha256();
            }
            ByteBuffer b = ByteBuffer.wrap(md.digest(token.getBytes(StandardCharsets.ISO_8859_1)));
            return new Hash(b.getLong(), b.getLong(), b.getLong(), b.getLong());
        }
    }

    private final int capacity;
    private final ConcurrentHashMap<Hash, Entry> entries;

    VerifiedTokens(int capacity) {
        this.capacity = capacity;
        this.entries = new ConcurrentHashMap<>(Math.min(capacity, 1024));
    }

    /** The cached result, or null when absent, expired, or verified against keys no longer current. */
    JwtVerifier.Verified get(Hash hash, KeySet current, long nowMillis) {
        Entry e = entries.get(hash);
        if (e == null) {
            return null;
        }
        if (e.keys() != current || nowMillis >= e.validUntilMillis()) {
            entries.remove(hash, e);
            return null;
        }
        return e.token();
    }

    void put(Hash hash, JwtVerifier.Verified token, KeySet keys, long validUntilMillis, long nowMillis) {
        if (entries.size() >= capacity) {
            entries.values().removeIf(e -> nowMillis >= e.validUntilMillis());
            if (entries.size() >= capacity) {
                entries.clear();
            }
        }
        entries.put(hash, new Entry(token, keys, validUntilMillis));
    }

    int size() {
        return entries.size();
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
