package io.loomgate.threads;

import java.io.IOException;
import java.io.OutputStream;

/**
 * A socket's output whose writes have a deadline. Java sockets have no write timeout: a peer that stops reading fills
 * its TCP window and the write parks forever, holding its thread (and, in the gateway, an upstream connection). Each
 * write here arms a {@link Deadline} for the write timeout; the watchdog runs the owner's action on one that overran
 * (the owner aborts the connection: closing the socket ends the write with an exception, and the exchange ends as a
 * client failure).
 */
public final class WatchedOutputStream extends OutputStream {
    private final OutputStream out;
    private final Deadline deadline;
    private final long timeoutNanos;

    /**
     * @param deadline the connection's write deadline, whose expiry action aborts the connection
     * @param timeoutNanos how long one write may block; zero or less for no limit
     */
    public WatchedOutputStream(OutputStream out, Deadline deadline, long timeoutNanos) {
        this.out = out;
        this.deadline = deadline;
        this.timeoutNanos = timeoutNanos;
    }

    @Override
    public void write(int b) throws IOException {
        if (timeoutNanos <= 0) {
            out.write(b);
            return;
        }
        deadline.armAfter(timeoutNanos);
        try {
            out.write(b);
        } finally {
            deadline.disarm();
        }
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        if (timeoutNanos <= 0) {
            out.write(b, off, len);
            return;
        }
        deadline.armAfter(timeoutNanos);
        try {
            out.write(b, off, len);
        } finally {
            deadline.disarm();
        }
    }

    @Override
    public void flush() throws IOException {
        out.flush();
    }
}
