package io.loomgate.testkit;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPrivateKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.function.Consumer;

/**
 * Keys the tests generate and tokens signed with them: RSA (RS256), EC P-256 (ES256), Ed25519 (EdDSA, signed with
 * the JDK) and HMAC secrets, with JWK sets to publish the public halves.
 */
public final class Jwts {
    private Jwts() {
    }

    /** A signing key with its id and the public JWK a JWKS publishes. */
    public record SigningKey(String kid, JWSAlgorithm alg, KeyPair pair, JWK publicJwk) {

        /** A token with these claims (sub, exp in 5 minutes, plus whatever {@code claims} adds). */
        public String token(Consumer<JWTClaimsSet.Builder> claims) {
            JWTClaimsSet.Builder b = new JWTClaimsSet.Builder().subject("alice")
                    .expirationTime(Date.from(Instant.now().plus(Duration.ofMinutes(5))));
            claims.accept(b);
            return sign(new JWSHeader.Builder(alg).keyID(kid).build(), b.build());
        }

        public String token() {
            return token(c -> { });
        }

        public String sign(JWSHeader header, JWTClaimsSet claims) {
            if (alg.equals(JWSAlgorithm.EdDSA)) {
                return signEd25519(header, claims, pair);
            }
            try {
                SignedJWT jwt = new SignedJWT(header, claims);
                JWSSigner signer = alg.equals(JWSAlgorithm.RS256) ? new RSASSASigner(pair.getPrivate())
                        : new ECDSASigner((ECPrivateKey) pair.getPrivate());
                jwt.sign(signer);
                return jwt.serialize();
            } catch (JOSEException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** RSA key generation takes up to seconds on a loaded machine: each name's pair is made once per JVM. */
    private static final java.util.Map<String, KeyPair> RSA_PAIRS = new java.util.concurrent.ConcurrentHashMap<>();

    /** An RSA key; the same {@code kid} gives the same key pair throughout the JVM. */
    public static SigningKey rsa(String kid) {
        return rsa(kid, kid);
    }

    /** An RSA key published as {@code kid}, whose pair is named {@code pair} (another pair, same kid: a forger). */
    public static SigningKey rsa(String kid, String pair) {
        KeyPair p = RSA_PAIRS.computeIfAbsent(pair, n -> generate("RSA", null));
        return new SigningKey(kid, JWSAlgorithm.RS256, p,
                new RSAKey.Builder((RSAPublicKey) p.getPublic()).keyID(kid).build());
    }

    public static SigningKey ec(String kid) {
        KeyPair p = generate("EC", new ECGenParameterSpec("secp256r1"));
        return new SigningKey(kid, JWSAlgorithm.ES256, p,
                new ECKey.Builder(Curve.P_256, (ECPublicKey) p.getPublic()).keyID(kid).build());
    }

    public static SigningKey ed25519(String kid) {
        KeyPair p = generate("Ed25519", null);
        byte[] spki = p.getPublic().getEncoded();
        byte[] x = Arrays.copyOfRange(spki, spki.length - 32, spki.length); // the raw key ends the X.509 encoding
        return new SigningKey(kid, JWSAlgorithm.EdDSA, p,
                new OctetKeyPair.Builder(Curve.Ed25519, Base64URL.encode(x)).keyID(kid).build());
    }

    /** A JWKS document with these keys' public halves. */
    public static String jwks(SigningKey... keys) {
        return new JWKSet(Arrays.stream(keys).map(SigningKey::publicJwk).toList()).toString(true);
    }

    /** An HS256 token signed with this secret (for the secret mode, and for algorithm confusion). */
    public static String hs256(byte[] secret, String kid, Consumer<JWTClaimsSet.Builder> claims) {
        JWTClaimsSet.Builder b = new JWTClaimsSet.Builder().subject("alice")
                .expirationTime(Date.from(Instant.now().plus(Duration.ofMinutes(5))));
        claims.accept(b);
        try {
            SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.HS256).keyID(kid).build(), b.build());
            jwt.sign(new MACSigner(secret));
            return jwt.serialize();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code {"alg":"none"}} with these claims and an empty signature (RFC 7519 §6 unsecured JWT). */
    public static String unsecured(String payloadJson) {
        return b64("{\"alg\":\"none\",\"typ\":\"JWT\"}") + "." + b64(payloadJson) + ".";
    }

    /** The token with its payload replaced (the signature kept): what a tamperer sends. */
    public static String withPayload(String token, String payloadJson) {
        String[] parts = token.split("\\.");
        return parts[0] + "." + b64(payloadJson) + "." + parts[2];
    }

    public static String payloadOf(String token) {
        return new String(Base64.getUrlDecoder().decode(token.split("\\.")[1]), StandardCharsets.UTF_8);
    }

    public static String b64(String s) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    public static List<String> sha256Hex(String... keys) {
        return Arrays.stream(keys).map(k -> {
            try {
                return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                        .digest(k.getBytes(StandardCharsets.UTF_8)));
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
        }).toList();
    }

    private static String signEd25519(JWSHeader header, JWTClaimsSet claims, KeyPair pair) {
        String input = header.toBase64URL() + "." + b64(claims.toString());
        try {
            Signature s = Signature.getInstance("Ed25519");
            s.initSign(pair.getPrivate());
            s.update(input.getBytes(StandardCharsets.US_ASCII));
            return input + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(s.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static KeyPair generate(String algorithm, java.security.spec.AlgorithmParameterSpec spec) {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance(algorithm);
            if (spec != null) {
                g.initialize(spec);
            } else if (algorithm.equals("RSA")) {
                g.initialize(2048);
            }
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The RSA private key type, for tests that need it explicitly. */
    public static RSAPrivateKey rsaPrivate(SigningKey k) {
        return (RSAPrivateKey) k.pair().getPrivate();
    }
}
