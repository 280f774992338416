package io.loomgate.it;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Random;

/** The bytes the traffic matrix moves: prefixes of one seeded random array, so both ends know what to expect. */
final class MatrixBodies {
    static final int MIB = 1 << 20;
    /** The largest body a cell sends. */
    static final byte[] DATA = new byte[8 * MIB];
    /** What {@code down} answers: a download for the cells that send no body. */
    static final int DOWNLOAD = 256 * 1024;

    static {
        new Random(34).nextBytes(DATA);
    }

    private MatrixBodies() {
    }

    static String sha256(byte[] b) {
        return sha256(b, b.length);
    }

    /** SHA-256 (hex) of the first {@code length} bytes. */
    static String sha256(byte[] b, int length) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update(b, 0, length);
            return HexFormat.of().formatHex(d.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
