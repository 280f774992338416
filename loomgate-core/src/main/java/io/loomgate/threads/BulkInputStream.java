package io.loomgate.threads;

import java.io.IOException;
import java.io.InputStream;

/**
 * A stream whose reads all go through {@link #read(byte[], int, int)} (a socket under a deadline, a TLS engine's
 * decrypted bytes): the one-byte read is that read of one byte, defined once here.
 */
public abstract class BulkInputStream extends InputStream {

    /** One byte, through the array read; -1 at the end of the stream. */
    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public abstract int read(byte[] b, int off, int len) throws IOException;
}
