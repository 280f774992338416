package io.loomgate.http1;

import io.loomgate.http.HttpLimits;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import java.io.IOException;
import java.io.InputStream;

/**
 * The buffered reading side of one HTTP/1.1 connection, client or server: reads message heads and gives body
 * streams the bytes that follow them. Owned by the one thread that serves the connection.
 *
 * <p>While the connection is idle between messages ({@link #awaitData()}) it holds no read buffer, so an idle
 * keep-alive connection costs only its socket and its parked thread.
 */
public final class HttpInput extends InputStream {

    /** @param in the socket's stream; @param bufferSize read buffer size (8 KiB typical) */
    public HttpInput(InputStream in, int bufferSize, HttpLimits limits) {
        throw new UnsupportedOperationException("stub");
    }

    /**
     * Blocks until at least one byte can be read, holding no buffer while it waits. Returns false on end of stream.
     * A socket read timeout surfaces as {@link java.net.SocketTimeoutException}.
     */
    public boolean awaitData() throws IOException {
        throw new UnsupportedOperationException("stub");
    }

    /**
     * Reads one request head (request line and fields, through the empty line). Returns null if the stream ended
     * cleanly before the first byte of a request. Leading empty lines are skipped (RFC 9112 §2.2).
     *
     * @throws HttpParseException with 400, 414, 431, 501 or 505 for a malformed or over-limit head
     * @throws java.io.EOFException if the stream ends inside the head
     */
    public RequestHead readRequestHead() throws IOException {
        throw new UnsupportedOperationException("stub");
    }

    /**
     * Reads one response head (status line and fields). Informational (1xx) heads are returned like any other;
     * the caller loops.
     *
     * @throws HttpParseException for a malformed head (the proxy answers 502)
     * @throws java.io.EOFException if the stream ends before or inside the head
     */
    public ResponseHead readResponseHead() throws IOException {
        throw new UnsupportedOperationException("stub");
    }

    /** Bytes already read from the socket and not yet consumed. */
    public int buffered() {
        throw new UnsupportedOperationException("stub");
    }

    @Override
    public int read() throws IOException {
        throw new UnsupportedOperationException("stub");
    }

    /** Reads buffered bytes first, then from the socket: at most one socket read per call. */
    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        throw new UnsupportedOperationException("stub");
    }

    @Override
    public int available() throws IOException {
        throw new UnsupportedOperationException("stub");
    }
}
