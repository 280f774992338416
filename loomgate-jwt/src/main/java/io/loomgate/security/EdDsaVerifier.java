package io.loomgate.security;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.jca.JCAContext;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jose.util.Base64URL;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.util.Set;

/**
 * Verifies EdDSA (Ed25519) signatures with the JDK's own Ed25519 (JDK 15+). Nimbus's {@code Ed25519Verifier} needs
 * Google Tink on the class path; the JDK does the same job without a second crypto library. Thread-safe: a
 * {@link Signature} is made per call.
 */
final class EdDsaVerifier implements JWSVerifier {
    /** The DER prefix of an X.509 SubjectPublicKeyInfo for Ed25519 (RFC 8410), followed by the 32 key bytes. */
    private static final byte[] SPKI_PREFIX = {0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00};

    private final PublicKey key;
    private final JCAContext context = new JCAContext();

    EdDsaVerifier(OctetKeyPair jwk) throws JOSEException {
        if (!Curve.Ed25519.equals(jwk.getCurve())) {
            throw new JOSEException("only Ed25519 OKP keys are supported, got " + jwk.getCurve());
        }
        byte[] x = jwk.getX().decode();
        if (x.length != 32) {
            throw new JOSEException("an Ed25519 public key has 32 bytes, got " + x.length);
        }
        byte[] spki = new byte[SPKI_PREFIX.length + 32];
        System.arraycopy(SPKI_PREFIX, 0, spki, 0, SPKI_PREFIX.length);
        System.arraycopy(x, 0, spki, SPKI_PREFIX.length, 32);
        try {
            key = KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(spki));
        } catch (GeneralSecurityException e) {
            throw new JOSEException("invalid Ed25519 public key: " + e.getMessage(), e);
        }
    }

    @Override
    public Set<JWSAlgorithm> supportedJWSAlgorithms() {
        return Set.of(JWSAlgorithm.EdDSA);
    }

    @Override
    public JCAContext getJCAContext() {
        return context;
    }

    @Override
    public boolean verify(JWSHeader header, byte[] signingInput, Base64URL signature) throws JOSEException {
        if (!JWSAlgorithm.EdDSA.equals(header.getAlgorithm())) {
            throw new JOSEException("EdDSA key, but the token says " + header.getAlgorithm());
        }
        if (header.getCriticalParams() != null && !header.getCriticalParams().isEmpty()) {
            return false; // RFC 7515 §4.1.11: critical extensions we do not understand make the token invalid
        }
        try {
            Signature s = Signature.getInstance("Ed25519");
            s.initVerify(key);
            s.update(signingInput);
            return s.verify(signature.decode());
        } catch (GeneralSecurityException e) {
            return false; // a signature of the wrong length or shape is simply not valid
        }
    }
}
