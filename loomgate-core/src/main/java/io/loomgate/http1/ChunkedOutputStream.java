package io.loomgate.http1;

import io.loomgate.http.Headers;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Objects;

/**
 * Writes a body with chunked transfer coding (RFC 9112 §7.1): each {@code write} becomes one chunk, and
 * {@link #finish(Headers)} writes the last chunk and the trailers. Does not flush by itself and never closes the
 * connection.
 *
 * <p>States: OPEN (chunks may be written), then FINISHED after {@link #finish}; writing or finishing again is an
 * {@link IllegalStateException} that names the state.
 */
public final class ChunkedOutputStream extends OutputStream {
    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] LAST_CHUNK_NO_TRAILERS = {'0', '\r', '\n', '\r', '\n'};
    private static final byte[] LAST_CHUNK = {'0', '\r', '\n'};

    private final OutputStream out;
    /** Room for 16 hex digits and CRLF, then one data byte and CRLF for write(int). */
    private final byte[] scratch = new byte[21];
    private boolean finished;

    public ChunkedOutputStream(OutputStream out) {
        this.out = Objects.requireNonNull(out, "out");
    }

    @Override
    public void write(int b) throws IOException {
        checkOpen();
        byte[] s = scratch;
        s[0] = '1';
        s[1] = '\r';
        s[2] = '\n';
        s[3] = (byte) b;
        s[4] = '\r';
        s[5] = '\n';
        out.write(s, 0, 6);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        checkOpen();
        if (len == 0) {
            return; // a zero-size chunk would be the last chunk
        }
        byte[] s = scratch;
        int digits = (32 - Integer.numberOfLeadingZeros(len) + 3) / 4;
        for (int i = digits - 1, v = len; i >= 0; i--, v >>>= 4) {
            s[i] = (byte) Character.forDigit(v & 0xf, 16);
        }
        s[digits] = '\r';
        s[digits + 1] = '\n';
        out.write(s, 0, digits + 2);
        out.write(b, off, len);
        out.write(CRLF, 0, 2);
    }

    /**
     * Writes the last chunk, these trailers (may be empty) and the final CRLF. Once only. Fields that may not be
     * trailers (framing, routing, authentication: {@link TrailerFields}) are left out, whoever supplied them.
     */
    public void finish(Headers trailers) throws IOException {
        checkOpen();
        if (trailers != null) {
            trailers = TrailerFields.allowed(trailers);
        }
        if (trailers == null || trailers.isEmpty()) {
            finished = true;
            out.write(LAST_CHUNK_NO_TRAILERS, 0, LAST_CHUNK_NO_TRAILERS.length);
            return;
        }
        // Encoded (and checked for CR/LF/NUL) in full before anything is written.
        HttpOutput encoder = new HttpOutput(out, 256);
        encoder.write(LAST_CHUNK, 0, LAST_CHUNK.length);
        encoder.writeFields(trailers);
        finished = true;
        encoder.flushBuffer();
    }

    @Override
    public void flush() throws IOException {
        out.flush();
    }

    /** Finishes with no trailers if not finished yet; does not close the underlying stream. */
    @Override
    public void close() throws IOException {
        if (!finished) {
            finish(null);
        }
    }

    private void checkOpen() {
        if (finished) {
            throw new IllegalStateException("chunked body is FINISHED: the last chunk has been written");
        }
    }
}
