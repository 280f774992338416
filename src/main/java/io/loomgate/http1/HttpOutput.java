package io.loomgate.http1;

import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import java.io.IOException;
import java.io.OutputStream;

/**
 * The buffered writing side of one HTTP/1.1 connection. Heads are encoded into the buffer; nothing reaches the
 * socket until the buffer fills or {@link #flush()} is called, so a small response leaves in one write.
 * Header names and values are written as given: they were validated when parsed or set by configuration, and
 * {@link #writeRequestHead} / {@link #writeResponseHead} refuse CR, LF or NUL in them (response splitting, CWE-113).
 */
public final class HttpOutput extends OutputStream {

    public HttpOutput(OutputStream out, int bufferSize) {
        throw new UnsupportedOperationException("stub");
    }

    /** Encodes {@code METHOD target VERSION\r\n fields \r\n}. */
    public void writeRequestHead(RequestHead head) throws IOException {
        throw new UnsupportedOperationException("stub");
    }

    /** Encodes {@code VERSION status reason\r\n fields \r\n}. */
    public void writeResponseHead(ResponseHead head) throws IOException {
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

    @Override
    public void flush() throws IOException {
        throw new UnsupportedOperationException("stub");
    }

    /** Releases the buffer if it is empty (an idle connection holds no write buffer). */
    public void releaseBuffer() {
        throw new UnsupportedOperationException("stub");
    }
}
