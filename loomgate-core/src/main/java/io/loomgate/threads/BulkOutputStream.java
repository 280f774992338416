package io.loomgate.threads;

import java.io.IOException;
import java.io.OutputStream;

/**
 * A stream whose writes all go through {@link #write(byte[], int, int)} (a TLS engine's encrypting stream, a response
 * body, a relay's pieces): the one-byte write is that write of one byte, defined once here, as {@link BulkInputStream}
 * defines the one-byte read.
 */
public abstract class BulkOutputStream extends OutputStream {

    /** One byte, through the array write. */
    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public abstract void write(byte[] b, int off, int len) throws IOException;
}
