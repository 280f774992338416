package io.loomgate.proxy;

import io.loomgate.http1.BodyInputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Copies a body from one side to the other through one fixed-size buffer, flushing after every read so each piece
 * the sender produced (an SSE event, a long-poll answer) reaches the receiver at once. Read and write failures are
 * told apart, because they are different sides' faults: which one decides the status and the log level.
 */
final class BodyRelay {
    /** Large enough that a bulk transfer needs few system calls, allocated once per body, never held while idle. */
    static final int MAX_BUFFER = 64 * 1024;
    /** For a body (or a tunnel) of unknown length: big enough for bulk, small enough for many at once. */
    static final int UNKNOWN_LENGTH_BUFFER = 16 * 1024;

    private BodyRelay() {
    }

    /** A buffer for a body of this length (-1 when unknown): small bodies get small buffers. */
    static byte[] bufferFor(long length) {
        if (length >= 0 && length < MAX_BUFFER) {
            return new byte[(int) Math.max(length, 1)];
        }
        return new byte[length < 0 ? UNKNOWN_LENGTH_BUFFER : MAX_BUFFER];
    }

    /** What failed while relaying. */
    static final class ReadFailed extends IOException {
        ReadFailed(IOException cause) {
            super(cause.getMessage(), cause);
        }
    }

    static final class WriteFailed extends IOException {
        WriteFailed(IOException cause) {
            super(cause.getMessage(), cause);
        }
    }

    /**
     * Copies until the body ends; returns the bytes copied. Throws {@link ReadFailed} or {@link WriteFailed} around
     * the cause, so the caller can blame the right side.
     */
    static long copy(BodyInputStream from, OutputStream to, byte[] buffer) throws IOException {
        long total = 0;
        while (true) {
            int n;
            try {
                n = from.read(buffer, 0, buffer.length);
            } catch (IOException e) {
                throw new ReadFailed(e);
            }
            if (n < 0) {
                return total;
            }
            try {
                to.write(buffer, 0, n);
                // Nothing more is waiting: hand what we have to the receiver now rather than wait to fill a buffer.
                if (from.available() == 0) {
                    to.flush();
                }
            } catch (IOException e) {
                throw new WriteFailed(e);
            }
            total += n;
        }
    }
}
