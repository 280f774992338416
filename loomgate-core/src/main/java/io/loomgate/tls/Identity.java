package io.loomgate.tls;

import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;

/**
 * A certificate chain (leaf first) and the private key of its leaf: what a TLS endpoint proves itself with.
 */
record Identity(X509Certificate[] chain, PrivateKey key) {

    X509Certificate leaf() {
        return chain[0];
    }

    /** The key algorithm as JSSE names key types: RSA, EC, EdDSA, RSASSA-PSS. */
    String keyType() {
        return key.getAlgorithm();
    }

    /** Whether this identity can serve JSSE's {@code keyType} ("EC", "RSA", "RSASSA-PSS", "EC_EC"...). */
    boolean serves(String keyType) {
        String wanted = keyType.indexOf('_') > 0 ? keyType.substring(0, keyType.indexOf('_')) : keyType;
        String have = keyType();
        return have.equalsIgnoreCase(wanted)
                || (have.equals("EdDSA") && (wanted.equals("Ed25519") || wanted.equals("Ed448")));
    }

    /** Signs a few bytes with the key and checks them with the certificate: a swapped or stale key is caught here. */
    void checkKeyMatches(Path file) throws TlsMaterialException {
        String algorithm = switch (keyType()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "EdDSA", "Ed25519", "Ed448" -> "EdDSA";
            default -> null; // RSASSA-PSS needs parameters; the handshake will tell
        };
        if (algorithm == null) {
            return;
        }
        byte[] probe = "loomgate key check".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        try {
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(leaf().getPublicKey());
            verifier.update(probe);
            if (verifier.verify(signature)) {
                return;
            }
        } catch (GeneralSecurityException e) {
            // a key of another type than the certificate's ends up here too
        }
        throw new TlsMaterialException(file, "the private key does not belong to the certificate '"
                + leaf().getSubjectX500Principal().getName() + "'");
    }
}
