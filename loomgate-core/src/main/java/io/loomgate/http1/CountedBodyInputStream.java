package io.loomgate.http1;

import java.io.IOException;

/**
 * A body read in runs of announced length: {@link #remaining} bytes of the current run are due from the connection,
 * then the next run ({@link #nextRun}) or the end. A Content-Length body is one run, a chunked body one per chunk.
 * Its reads never ask the connection for more than the run holds, so they never consume a byte of the next message;
 * a connection that ends inside a run fails the body ({@link #endedEarly}), never passes for its end.
 */
abstract class CountedBodyInputStream extends BodyInputStream {
    final HttpInput in;
    /** Bytes of the current run not read yet. */
    long remaining;

    CountedBodyInputStream(HttpInput in, long remaining) {
        this.in = in;
        this.remaining = remaining;
    }

    /** Called with nothing of the current run left: starts the next run, or says false at the end of the body. */
    abstract boolean nextRun() throws IOException;

    /** The failure of a connection that ended with {@link #remaining} bytes of the run still due. */
    abstract IOException endedEarly();

    @Override
    public int read() throws IOException {
        if (remaining == 0 && !nextRun()) {
            return -1;
        }
        int c = in.read();
        if (c < 0) {
            throw endedEarly();
        }
        remaining--;
        return c;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (asksForNothing(b, off, len)) {
            return 0;
        }
        if (remaining == 0 && !nextRun()) {
            return -1;
        }
        return counted(in.read(b, off, (int) Math.min(len, remaining)));
    }

    /** Counts {@code n} bytes read off the run; a connection that ended (-1) fails the body. */
    final int counted(int n) throws IOException {
        if (n < 0) {
            throw endedEarly();
        }
        remaining -= n;
        return n;
    }

    @Override
    public int available() {
        return (int) Math.min(in.buffered(), remaining);
    }

    /** The buffer's bytes, or when it is empty the socket's (a system call), within the current run. */
    @Override
    public int readyBytes() throws IOException {
        return (int) Math.min(in.available(), remaining);
    }
}
