package io.loomgate.http2;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import javax.security.auth.x500.X500Principal;

/**
 * X.509 certificates made in the test's JVM, for the probes that need hundreds of distinct ones: openssl takes a
 * process (~16 ms at load) per certificate, this a key pair and a signature (well under 1 ms). Only the fixed frame of
 * a certificate is written here (RFC 5280 §4.1: the TBSCertificate's sequence of a version, serial, algorithm, names,
 * validity, key and extensions); the names, the key's encoding and the signature are the JDK's, and the result is
 * parsed back by the JDK's {@link CertificateFactory}. Signed with ECDSA over SHA-256, valid from an hour ago for a day.
 */
final class TestCertificates {
    /** AlgorithmIdentifier ecdsa-with-SHA256 (1.2.840.10045.4.3.2), no parameters (RFC 5758 §3.2). */
    private static final byte[] ECDSA_SHA256 = {0x30, 0x0a, 0x06, 0x08, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d,
        0x04, 0x03, 0x02};
    /** Extension basicConstraints (2.5.29.19), critical, CA:TRUE: what openssl's {@code req -x509} writes. */
    private static final byte[] BASIC_CONSTRAINTS_CA = {0x30, 0x0f, 0x06, 0x03, 0x55, 0x1d, 0x13, 0x01, 0x01,
        (byte) 0xff, 0x04, 0x05, 0x30, 0x03, 0x01, 0x01, (byte) 0xff};
    private static final DateTimeFormatter UTC_TIME = DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'");

    private TestCertificates() {
    }

    /**
     * A certificate for {@code subjectKey} named {@code subject}, naming {@code issuer} and signed by {@code signer}'s
     * private key, with subject and authority key identifiers (SHA-1 of each public key's encoding), and CA:TRUE when
     * {@code ca}.
     */
    static X509Certificate issue(String subject, PublicKey subjectKey, String issuer, KeyPair signer, long serial,
                                 boolean ca) throws GeneralSecurityException {
        ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
        byte[] extensions = tlv(0xa3, tlv(0x30,
                ca ? BASIC_CONSTRAINTS_CA : new byte[0],
                extension(new byte[] {0x55, 0x1d, 0x0e}, tlv(0x04, keyId(subjectKey))), // subjectKeyIdentifier
                extension(new byte[] {0x55, 0x1d, 0x23}, tlv(0x30, tlv(0x80, keyId(signer.getPublic())))))); // AKI
        byte[] tbs = tlv(0x30,
                tlv(0xa0, tlv(0x02, new byte[] {2})), // version 3
                tlv(0x02, BigInteger.valueOf(serial).toByteArray()),
                ECDSA_SHA256,
                new X500Principal("CN=" + issuer).getEncoded(),
                tlv(0x30, tlv(0x17, ascii(now.minusHours(1))), tlv(0x17, ascii(now.plusDays(1)))),
                new X500Principal("CN=" + subject).getEncoded(),
                subjectKey.getEncoded(), // SubjectPublicKeyInfo
                extensions);
        Signature ecdsa = Signature.getInstance("SHA256withECDSA");
        ecdsa.initSign(signer.getPrivate());
        ecdsa.update(tbs);
        byte[] signature = ecdsa.sign();
        byte[] bits = new byte[signature.length + 1]; // BIT STRING: no unused bits, then the DER signature
        System.arraycopy(signature, 0, bits, 1, signature.length);
        byte[] der = tlv(0x30, tbs, ECDSA_SHA256, tlv(0x03, bits));
        return (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(der));
    }

    private static byte[] extension(byte[] oid, byte[] value) {
        return tlv(0x30, tlv(0x06, oid), tlv(0x04, value));
    }

    private static byte[] keyId(PublicKey key) throws GeneralSecurityException {
        return MessageDigest.getInstance("SHA-1").digest(key.getEncoded());
    }

    private static byte[] ascii(ZonedDateTime t) {
        return UTC_TIME.format(t).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    /** One DER item: the tag, the definite length (short or long form), the contents. */
    private static byte[] tlv(int tag, byte[]... contents) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (byte[] c : contents) {
            body.writeBytes(c);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(tag);
        int n = body.size();
        if (n < 0x80) {
            out.write(n);
        } else {
            int bytes = n > 0xffff ? 3 : n > 0xff ? 2 : 1;
            out.write(0x80 | bytes);
            for (int i = bytes - 1; i >= 0; i--) {
                out.write(n >>> (8 * i));
            }
        }
        out.writeBytes(body.toByteArray());
        return out.toByteArray();
    }
}
