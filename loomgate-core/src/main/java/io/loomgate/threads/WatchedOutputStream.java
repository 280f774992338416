package io.loomgate.threads;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;

/**
 * A socket's output whose writes have a deadline. Java sockets have no write timeout: a peer that stops reading fills
 * its TCP window and the write parks forever, holding its thread (and, in the gateway, an upstream connection). Each
 * write here arms a {@link Deadline} for the write timeout; the watchdog runs the owner's action on one that overran
 * (the owner aborts the connection: closing the socket ends the write with an exception, and the exchange ends as a
 * client failure).
 *
 * <p>Direct writes: over a socket that is a channel, {@link #write(ByteBuffer)} writes a direct buffer straight to
 * it under the same deadline ({@link #directWriter()}), without the JDK's copy of a heap array into its temporary
 * direct buffer.
 */
public final class WatchedOutputStream extends OutputStream implements WritableByteChannel {
    private final OutputStream out;
    /** The socket's channel for direct writes, or null (TLS, a socket without a channel). */
    private final WritableByteChannel channel;
    private final Deadline deadline;
    private final long timeoutNanos;

    /**
     * @param deadline the connection's write deadline, whose expiry action aborts the connection
     * @param timeoutNanos how long one write may block; zero or less for no limit
     */
    public WatchedOutputStream(OutputStream out, Deadline deadline, long timeoutNanos) {
        this(out, null, deadline, timeoutNanos);
    }

    /** @param channel the socket's own channel ({@code socket.getChannel()}) for {@link #write(ByteBuffer)}, or null */
    public WatchedOutputStream(OutputStream out, WritableByteChannel channel, Deadline deadline, long timeoutNanos) {
        this.out = out;
        this.channel = channel;
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

    /** This stream as a channel for direct writes, or null when its socket has no channel. */
    public WritableByteChannel directWriter() {
        return channel == null ? null : this;
    }

    /**
     * Writes all of {@code src} (a direct buffer: no copy on the way) to the socket's channel under the write
     * deadline. Only when {@link #directWriter()} is not null; returns the bytes written.
     */
    @Override
    public int write(ByteBuffer src) throws IOException {
        if (channel == null) {
            throw new UnsupportedOperationException("no channel under this socket's stream");
        }
        int n = src.remaining();
        if (timeoutNanos > 0) {
            deadline.armAfter(timeoutNanos);
        }
        try {
            while (src.hasRemaining()) {
                channel.write(src); // a blocking channel writes everything; the loop only guards the contract
            }
        } finally {
            if (timeoutNanos > 0) {
                deadline.disarm();
            }
        }
        return n;
    }

    /** Whether the channel is open (as a channel); true without one. */
    @Override
    public boolean isOpen() {
        return channel == null || channel.isOpen();
    }
}
