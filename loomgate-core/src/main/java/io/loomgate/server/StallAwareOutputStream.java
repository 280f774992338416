package io.loomgate.server;

import java.io.IOException;
import java.io.OutputStream;

/**
 * The socket's output, remembering since when a write has been blocked. Java sockets have no write timeout: a client
 * that stops reading fills its TCP window and the write parks forever, holding the request's thread and its upstream
 * connection. {@link Listener}'s watchdog reads {@link #blockedSinceNanos()} and aborts writes stuck too long.
 */
final class StallAwareOutputStream extends OutputStream {
    private final OutputStream out;
    /** System.nanoTime() when the current write began, or 0 when no write is in progress. Written by the owner only. */
    private volatile long writingSince;

    StallAwareOutputStream(OutputStream out) {
        this.out = out;
    }

    long blockedSinceNanos() {
        return writingSince;
    }

    @Override
    public void write(int b) throws IOException {
        writingSince = System.nanoTime() | 1; // never 0 while writing
        try {
            out.write(b);
        } finally {
            writingSince = 0;
        }
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        writingSince = System.nanoTime() | 1;
        try {
            out.write(b, off, len);
        } finally {
            writingSince = 0;
        }
    }

    @Override
    public void flush() throws IOException {
        out.flush();
    }
}
