package io.loomgate.server;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;

/**
 * The socket's input with two kinds of timeout: a per-read timeout (SO_TIMEOUT) and, when armed, a deadline for a
 * whole phase. The deadline is what stops a client that trickles one byte every few seconds: each read gets only the
 * time left until the deadline, so the head must be complete by then however the bytes are spaced.
 * Owned by the connection's thread.
 */
final class DeadlineInputStream extends InputStream {
    private final Socket socket;
    private final InputStream in;
    private long deadlineNanos;
    private String phase;
    private int readTimeoutMillis = -1;

    DeadlineInputStream(Socket socket) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
    }

    /** Every read from now on fails once {@code deadlineNanos} (System.nanoTime) has passed. */
    void armDeadline(long deadlineNanos, String phase) {
        this.deadlineNanos = deadlineNanos;
        this.phase = phase;
    }

    void disarm() {
        this.phase = null;
    }

    /** The timeout of a single read while no deadline is armed. */
    void readTimeout(int millis) throws IOException {
        if (millis != readTimeoutMillis) {
            socket.setSoTimeout(millis);
            readTimeoutMillis = millis;
        }
    }

    private void beforeRead() throws IOException {
        if (phase == null) {
            return;
        }
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
            throw new SocketTimeoutException(phase + " not complete in time");
        }
        int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, left / 1_000_000));
        socket.setSoTimeout(millis);
        readTimeoutMillis = millis;
    }

    @Override
    public int read() throws IOException {
        beforeRead();
        return in.read();
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        beforeRead();
        return in.read(b, off, len);
    }

    @Override
    public int available() throws IOException {
        return in.available();
    }
}
