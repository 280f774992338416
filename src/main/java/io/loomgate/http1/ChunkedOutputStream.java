package io.loomgate.http1;

import io.loomgate.http.Headers;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Writes a body with chunked transfer coding (RFC 9112 §7.1): each {@code write} becomes one chunk, and
 * {@link #finish(Headers)} writes the last chunk and the trailers. Does not flush by itself and never closes the
 * connection.
 */
public final class ChunkedOutputStream extends OutputStream {

    public ChunkedOutputStream(OutputStream out) {
        throw new UnsupportedOperationException("stub");
    }

    @Override
    public void write(int b) throws IOException {
        throw new UnsupportedOperationException("stub");
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        throw new UnsupportedOperationException("stub");
    }

    /** Writes the last chunk, these trailers (may be empty) and the final CRLF. Once only. */
    public void finish(Headers trailers) throws IOException {
        throw new UnsupportedOperationException("stub");
    }

    @Override
    public void flush() throws IOException {
        throw new UnsupportedOperationException("stub");
    }

    /** Finishes with no trailers if not finished yet; does not close the underlying stream. */
    @Override
    public void close() throws IOException {
        throw new UnsupportedOperationException("stub");
    }
}
