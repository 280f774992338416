package io.loomgate.tls;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A plain TCP socket whose input is read through a buffer the size of one TLS record, for JSSE to be layered over
 * ({@link ClientTls#handshake}). JSSE reads each record from the socket it is layered on in two reads, the 5-byte
 * header and then the body; over this socket the first read takes in whatever has arrived (usually the whole record,
 * often the next ones too) and the second is served from the buffer, so an upstream response costs one read system
 * call where it cost two.
 *
 * <p>Only for connections to origins: the pool holds them (bounded by {@code max-connections}), so the buffer's
 * 16.5 KiB each is paid per pooled origin connection, not per client. A read that times out leaves the buffer as it
 * was (no byte is lost), and everything else (close, shutdown, timeouts) is the socket's own.
 */
class RecordBufferedSocket extends java.net.Socket {
    /** The largest TLS record on the wire (2^14 bytes of plaintext plus 256 of expansion) and its 5-byte header. */
    static final int RECORD_BUFFER_SIZE = 16_384 + 256 + 5;

    /** Made on first use (the socket must be connected); one for the socket's life, whoever asks. */
    private final AtomicReference<InputStream> input = new AtomicReference<>();

    @Override
    public InputStream getInputStream() throws IOException {
        InputStream in = input.get();
        if (in != null) {
            return in;
        }
        // Nothing has been read through a stream that loses the race, so dropping it loses no byte.
        input.compareAndSet(null, new BufferedInputStream(socketInput(), RECORD_BUFFER_SIZE));
        return input.get();
    }

    /** The socket's own stream (a seam for the test that counts the reads reaching it). */
    InputStream socketInput() throws IOException {
        return super.getInputStream();
    }
}
