package io.loomgate.security;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.KeyUse;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jose.jwk.RSAKey;
import java.text.ParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One immutable set of verification keys, each with the algorithms it may verify. A key's type fixes its algorithms
 * (an RSA key verifies RS and PS, a P-256 key ES256 only, an Ed25519 key EdDSA, a shared secret HS), narrowed by the
 * JWK's own {@code alg} and by the filter's {@code algorithms}. So a token cannot choose how its signature is checked:
 * HS256 signed with an RSA public key finds no key that verifies HS256 (algorithm confusion).
 *
 * @param text the JWKS document the set was read from (to tell an unchanged refresh), or "" for a secret
 */
record KeySet(List<Key> keys, String text) {

    /** One key: its id (may be null), the algorithms it verifies, and its verifier (thread-safe). */
    record Key(String kid, Set<JWSAlgorithm> algorithms, JWSVerifier verifier) {
    }

    private static final Set<JWSAlgorithm> RSA = Set.of(JWSAlgorithm.RS256, JWSAlgorithm.RS384, JWSAlgorithm.RS512,
            JWSAlgorithm.PS256, JWSAlgorithm.PS384, JWSAlgorithm.PS512);
    private static final Map<Curve, JWSAlgorithm> EC = Map.of(Curve.P_256, JWSAlgorithm.ES256,
            Curve.P_384, JWSAlgorithm.ES384, Curve.P_521, JWSAlgorithm.ES512);

    /**
     * Keys one JWKS document may hold. Identity providers publish a handful (the current key and the next); the
     * bound keeps a hostile or broken document (up to 1 MiB) from costing a verifier per key and a linear scan per
     * token with an unknown kid.
     */
    static final int MAX_KEYS = 100;

    KeySet {
        keys = List.copyOf(keys);
    }

    /** The keys that may verify a token with this header: its kid (any key when it has none) and algorithm. */
    List<Key> candidates(String kid, JWSAlgorithm alg) {
        List<Key> out = new ArrayList<>(2);
        for (Key k : keys) {
            if ((kid == null || kid.equals(k.kid())) && k.algorithms().contains(alg)) {
                out.add(k);
            }
        }
        return out;
    }

    /** Whether a token with this kid could find its key here (a token without kid always can try). */
    boolean knows(String kid) {
        if (kid == null) {
            return true;
        }
        for (Key k : keys) {
            if (kid.equals(k.kid())) {
                return true;
            }
        }
        return false;
    }

    /** An HMAC secret (labs): at least 256 bits, as RFC 7518 §3.2 requires for HS256. */
    static KeySet secret(byte[] secret, Set<JWSAlgorithm> allowed) {
        try {
            return new KeySet(List.of(new Key(null, Set.copyOf(allowed), new MACVerifier(secret))), "");
        } catch (JOSEException e) {
            throw new IllegalArgumentException("secret: " + e.getMessage());
        }
    }

    /**
     * Reads a JWKS document. Keys for encryption ({@code use: enc}), symmetric keys and keys whose type allows none
     * of the accepted algorithms are left out; a document with no usable key at all is refused.
     *
     * @throws IllegalArgumentException saying what is wrong with the document
     */
    static KeySet parseJwks(String text, Set<JWSAlgorithm> allowed) {
        JWKSet set;
        try {
            set = JWKSet.parse(text);
        } catch (ParseException e) {
            throw new IllegalArgumentException("not a JWK set: " + e.getMessage());
        }
        if (set.getKeys().size() > MAX_KEYS) {
            throw new IllegalArgumentException("the JWK set has " + set.getKeys().size() + " keys; at most "
                    + MAX_KEYS + " are accepted");
        }
        List<Key> keys = new ArrayList<>();
        for (JWK jwk : set.getKeys()) {
            if (KeyUse.ENCRYPTION.equals(jwk.getKeyUse())) {
                continue;
            }
            Key k = key(jwk, allowed);
            if (k != null) {
                keys.add(k);
            }
        }
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("the JWK set has no signature key for " + allowed + " (it has "
                    + set.getKeys().size() + " key(s))");
        }
        return new KeySet(keys, text);
    }

    private static Key key(JWK jwk, Set<JWSAlgorithm> allowed) {
        Set<JWSAlgorithm> byType;
        JWSVerifier verifier;
        try {
            switch (jwk) {
                case RSAKey rsa -> {
                    byType = RSA;
                    verifier = new RSASSAVerifier(rsa.toPublicJWK());
                }
                case ECKey ec -> {
                    JWSAlgorithm alg = EC.get(ec.getCurve());
                    if (alg == null) {
                        return null;
                    }
                    byType = Set.of(alg);
                    verifier = new ECDSAVerifier(ec.toPublicJWK());
                }
                case OctetKeyPair okp -> {
                    if (!Curve.Ed25519.equals(okp.getCurve())) {
                        return null;
                    }
                    byType = Set.of(JWSAlgorithm.EdDSA);
                    verifier = new EdDsaVerifier(okp.toPublicJWK());
                }
                default -> {
                    return null; // "oct" and unknown types: a JWKS never carries a shared secret we would trust
                }
            }
        } catch (JOSEException e) {
            throw new IllegalArgumentException("key " + Objects.requireNonNullElse(jwk.getKeyID(), "(no kid)")
                    + ": " + e.getMessage());
        }
        Set<JWSAlgorithm> algs = new java.util.HashSet<>(byType);
        algs.retainAll(allowed);
        if (jwk.getAlgorithm() != null) {
            algs.removeIf(a -> !a.getName().equals(jwk.getAlgorithm().getName()));
        }
        return algs.isEmpty() ? null : new Key(jwk.getKeyID(), Set.copyOf(algs), verifier);
    }
}
