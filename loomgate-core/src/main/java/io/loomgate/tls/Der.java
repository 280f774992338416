package io.loomgate.tls;

import java.io.ByteArrayOutputStream;

/**
 * Just enough DER (X.690) to wrap a PKCS#1 or SEC1 private key into PKCS#8, the one form the JDK's
 * {@link java.security.KeyFactory} reads: writing a few tag-length-value items and reading the top-level items of a
 * SEQUENCE. The key itself is parsed by the JDK, never here.
 */
final class Der {
    static final int INTEGER = 0x02;
    static final int BIT_STRING = 0x03;
    static final int OCTET_STRING = 0x04;
    static final int NULL = 0x05;
    static final int OID = 0x06;
    static final int SEQUENCE = 0x30;
    /** {@code [0]} constructed, context-specific: SEC1's optional curve parameters. */
    static final int CONTEXT_0 = 0xA0;

    /** OID 1.2.840.113549.1.1.1, rsaEncryption, as DER content bytes. */
    static final byte[] RSA_ENCRYPTION = {0x2A, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xF7, 0x0D, 0x01, 0x01, 0x01};
    /** OID 1.2.840.10045.2.1, id-ecPublicKey. */
    static final byte[] EC_PUBLIC_KEY = {0x2A, (byte) 0x86, 0x48, (byte) 0xCE, 0x3D, 0x02, 0x01};

    private Der() {
    }

    /** One item read from an encoding: its tag and where its content lies. */
    record Item(int tag, byte[] source, int contentStart, int contentLength) {
        int end() {
            return contentStart + contentLength;
        }

        byte[] content() {
            byte[] out = new byte[contentLength];
            System.arraycopy(source, contentStart, out, 0, contentLength);
            return out;
        }
    }

    static byte[] item(int tag, byte[]... contents) {
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
            int bytes = n > 0xFFFFFF ? 4 : n > 0xFFFF ? 3 : n > 0xFF ? 2 : 1;
            out.write(0x80 | bytes);
            for (int i = bytes - 1; i >= 0; i--) {
                out.write(n >>> (8 * i));
            }
        }
        out.writeBytes(body.toByteArray());
        return out.toByteArray();
    }

    /** Reads the item starting at {@code at}; throws IllegalArgumentException on a truncated or over-long item. */
    static Item read(byte[] der, int at) {
        if (at + 2 > der.length) {
            throw new IllegalArgumentException("truncated DER");
        }
        int tag = der[at] & 0xFF;
        int len = der[at + 1] & 0xFF;
        int pos = at + 2;
        if (len >= 0x80) {
            int bytes = len & 0x7F;
            if (bytes == 0 || bytes > 4 || pos + bytes > der.length) {
                throw new IllegalArgumentException("unsupported DER length");
            }
            len = 0;
            for (int i = 0; i < bytes; i++) {
                len = (len << 8) | (der[pos++] & 0xFF);
            }
        }
        if (len < 0 || pos + len > der.length) {
            throw new IllegalArgumentException("truncated DER");
        }
        return new Item(tag, der, pos, len);
    }
}
