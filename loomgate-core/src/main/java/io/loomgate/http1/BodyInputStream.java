package io.loomgate.http1;

import io.loomgate.http.Headers;
import io.loomgate.threads.BulkInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A message body that knows where it ends. Reading returns -1 exactly at the end of the body and never consumes a
 * byte of the next message, so the connection can be reused only when {@link #isComplete()}. Closing this stream
 * does not close the connection.
 */
public abstract class BodyInputStream extends BulkInputStream {

    /**
     * The argument check every body's array read makes first: throws for a range outside {@code b}, as
     * {@link InputStream} does; true when the read asks for no bytes, which returns 0 even at the end of the body.
     */
    protected static boolean asksForNothing(byte[] b, int off, int len) {
        Objects.checkFromIndexSize(off, len, b.length);
        return len == 0;
    }

    /** Whether the whole body has been read, up to and including its framing (last chunk and trailers). */
    public abstract boolean isComplete();

    /**
     * Waits until the body has a byte to read (or its stream ended), holding no read buffer meanwhile, so a peer
     * that sends slowly costs no buffer memory while it is silent. Returns false when the body is already complete.
     * A following read reports the data, the end or the error as usual. This default does not wait.
     */
    public boolean awaitData() throws IOException {
        return !isComplete();
    }

    /**
     * Bytes of the body a read returns now without waiting for its sender: {@link #available()} by default. A body
     * read from a socket through a buffer also counts what the socket holds (a system call), where
     * {@code available()} counts the buffer only: for a caller that would rather not block on a paused sender.
     */
    public int readyBytes() throws IOException {
        return available();
    }

    /**
     * Does now, on the calling thread, what the first read does besides reading (HTTP/1.1's "100 Continue" to the
     * client): for a body about to be read on another thread while this one may write the response (full duplex),
     * so that two threads never write to the client at once. Nothing by default.
     */
    public void startReading() throws IOException {
    }

    /**
     * Whether {@link #read(ByteBuffer)} reads the connection straight into the buffer (a plain socket's channel,
     * a body whose bytes are not parsed: fixed length or until close). False by default: use the byte[] reads.
     */
    public boolean readsDirect() {
        return false;
    }

    /**
     * Reads body bytes into {@code dst} (a direct buffer, for no copy through the heap), like
     * {@link #read(byte[], int, int)}: at most {@code dst.remaining()}, -1 at the end of the body. Only when
     * {@link #readsDirect()}.
     */
    public int read(ByteBuffer dst) throws IOException {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " has no direct reads");
    }

    /** The trailer fields of a chunked body, available once complete; empty for other framings. */
    public Headers trailers() {
        return new Headers(0); // no arrays: every response without trailers asks
    }

    /**
     * Reads and discards what is left of the body, if that is at most {@code maxBytes}; says whether the body is now
     * complete (and so whether the connection may be reused).
     */
    public boolean drain(long maxBytes) throws IOException {
        byte[] skip = new byte[4096];
        long left = maxBytes;
        while (!isComplete() && left >= 0) {
            int n = read(skip, 0, (int) Math.min(skip.length, left + 1));
            if (n < 0) {
                break;
            }
            left -= n;
        }
        return isComplete();
    }

    @Override
    public void close() throws IOException {
        // Deliberately does not close the connection; the owner decides from isComplete().
    }
}
