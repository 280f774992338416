package io.loomgate.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads PEM files (RFC 7468): certificate chains, and private keys in the three forms OpenSSL and the certificate
 * authorities write: PKCS#8 ({@code PRIVATE KEY}), PKCS#1 ({@code RSA PRIVATE KEY}) and SEC1 ({@code EC PRIVATE KEY}).
 * The last two are wrapped into PKCS#8 by a fixed DER prefix (see {@link Der}) and handed to the JDK's
 * {@link KeyFactory}: the key is parsed and checked by the JDK, not here. Encrypted keys are refused with a message
 * saying what to do. Errors name the file.
 */
final class Pem {
    private static final Pattern BLOCK = Pattern.compile(
            "-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\\s:,\\-]*?)-----END \\1-----");

    private Pem() {
    }

    /** One PEM block: its label and decoded bytes. */
    record Block(String label, byte[] der) {
    }

    static List<Block> blocks(Path file) throws TlsMaterialException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.US_ASCII);
        } catch (NoSuchFileException e) {
            throw new TlsMaterialException(file, "no such file");
        } catch (IOException e) {
            throw new TlsMaterialException(file, "cannot read: " + e.getMessage());
        }
        List<Block> out = new ArrayList<>();
        Matcher m = BLOCK.matcher(text);
        while (m.find()) {
            String body = m.group(2);
            if (body.contains(":")) { // RFC 1421 headers: Proc-Type: 4,ENCRYPTED
                throw new TlsMaterialException(file, "the key is encrypted (Proc-Type header); decrypt it "
                        + "(openssl pkey -in key.pem -out plain.pem) or use a key store with a password");
            }
            try {
                out.add(new Block(m.group(1), Base64.getMimeDecoder().decode(body)));
            } catch (IllegalArgumentException e) {
                throw new TlsMaterialException(file, "bad base64 in the " + m.group(1) + " block");
            }
        }
        return out;
    }

    /** Every CERTIFICATE block, in file order (leaf first for a chain). */
    static List<X509Certificate> certificates(Path file) throws TlsMaterialException {
        List<X509Certificate> out = new ArrayList<>();
        CertificateFactory factory;
        try {
            factory = CertificateFactory.getInstance("X.509");
        } catch (CertificateException e) {
            throw new IllegalStateException("the JDK has no X.509 certificate factory", e);
        }
        for (Block b : blocks(file)) {
            if (!b.label().equals("CERTIFICATE") && !b.label().equals("TRUSTED CERTIFICATE")) {
                continue;
            }
            try {
                out.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(b.der())));
            } catch (CertificateException e) {
                throw new TlsMaterialException(file, "certificate " + (out.size() + 1) + " is not valid X.509: "
                        + e.getMessage());
            }
        }
        if (out.isEmpty()) {
            throw new TlsMaterialException(file, "no '-----BEGIN CERTIFICATE-----' block");
        }
        return out;
    }

    /** The first private key in the file, in any of the three forms. */
    static PrivateKey privateKey(Path file) throws TlsMaterialException {
        for (Block b : blocks(file)) {
            switch (b.label()) {
                case "PRIVATE KEY":
                    return pkcs8(file, b.der());
                case "RSA PRIVATE KEY":
                    return decode(file, "RSA", pkcs8(Der.item(Der.SEQUENCE, Der.item(Der.OID, Der.RSA_ENCRYPTION),
                            Der.item(Der.NULL)), b.der()));
                case "EC PRIVATE KEY":
                    return decode(file, "EC", pkcs8(Der.item(Der.SEQUENCE, Der.item(Der.OID, Der.EC_PUBLIC_KEY),
                            Der.item(Der.OID, curveOf(file, b.der()))), b.der()));
                case "ENCRYPTED PRIVATE KEY":
                    throw new TlsMaterialException(file, "the key is encrypted (ENCRYPTED PRIVATE KEY); decrypt it "
                            + "(openssl pkey -in key.pem -out plain.pem) or use a key store with a password");
                default:
                    break; // EC PARAMETERS, certificates in a combined file...
            }
        }
        throw new TlsMaterialException(file, "no private key block (expected PRIVATE KEY, RSA PRIVATE KEY or "
                + "EC PRIVATE KEY)");
    }

    private static byte[] pkcs8(byte[] algorithmIdentifier, byte[] innerKey) {
        return Der.item(Der.SEQUENCE, Der.item(Der.INTEGER, new byte[] {0}), algorithmIdentifier,
                Der.item(Der.OCTET_STRING, innerKey));
    }

    /** SEC1 ECPrivateKey ::= SEQUENCE { version, privateKey OCTET STRING, [0] namedCurve OID OPTIONAL, ... }. */
    private static byte[] curveOf(Path file, byte[] sec1) throws TlsMaterialException {
        try {
            Der.Item seq = Der.read(sec1, 0);
            int at = seq.contentStart();
            while (at < seq.end()) {
                Der.Item item = Der.read(sec1, at);
                if (item.tag() == Der.CONTEXT_0) {
                    Der.Item curve = Der.read(sec1, item.contentStart());
                    if (curve.tag() != Der.OID) {
                        throw new TlsMaterialException(file, "EC key with explicit curve parameters; only named "
                                + "curves are supported (openssl ec -param_enc named_curve)");
                    }
                    return curve.content();
                }
                at = item.end();
            }
        } catch (IllegalArgumentException e) {
            throw new TlsMaterialException(file, "EC PRIVATE KEY is not valid DER: " + e.getMessage());
        }
        throw new TlsMaterialException(file, "EC PRIVATE KEY names no curve; write it as PKCS#8 "
                + "(openssl pkcs8 -topk8 -nocrypt)");
    }

    private static PrivateKey pkcs8(Path file, byte[] der) throws TlsMaterialException {
        String algorithm = algorithmOf(der);
        if (algorithm == null) {
            throw new TlsMaterialException(file, "PRIVATE KEY of an algorithm other than RSA, EC, Ed25519/Ed448");
        }
        return decode(file, algorithm, der);
    }

    private static PrivateKey decode(Path file, String algorithm, byte[] pkcs8) throws TlsMaterialException {
        try {
            return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
        } catch (GeneralSecurityException e) {
            throw new TlsMaterialException(file, "not a valid " + algorithm + " private key: " + e.getMessage());
        }
    }

    /** The key algorithm named by a PKCS#8 PrivateKeyInfo's AlgorithmIdentifier, or null. */
    private static String algorithmOf(byte[] der) {
        try {
            Der.Item info = Der.read(der, 0);
            Der.Item version = Der.read(der, info.contentStart());
            Der.Item algorithm = Der.read(der, version.end());
            byte[] oid = Der.read(der, algorithm.contentStart()).content();
            if (java.util.Arrays.equals(oid, Der.RSA_ENCRYPTION)) {
                return "RSA";
            }
            if (java.util.Arrays.equals(oid, Der.EC_PUBLIC_KEY)) {
                return "EC";
            }
            if (oid.length == 3 && oid[0] == 0x2B && oid[1] == 0x65) { // 1.3.101.x: X25519, Ed25519, Ed448
                return oid[2] == 0x70 || oid[2] == 0x71 ? "EdDSA" : null;
            }
            if (java.util.Arrays.equals(oid, new byte[] {0x2A, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xF7, 0x0D,
                    0x01, 0x01, 0x0A})) {
                return "RSASSA-PSS";
            }
            return null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
